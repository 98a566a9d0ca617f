"""``--suite tools:DIR``: a tool set of one's own (typed Python tools over a JSON database,
tasks with their ground truth) through the same runner, and the guard on tool sets nobody
here wrote, each written without knowing planfilter (``tests/fixtures/gadgetdesk``: an
electronics store's support desk; ``staydesk``: a hotel chain's reservations and partner-rail
desk; ``carrierdesk``: a mobile carrier's, plain dicts and sentences, telephone numbers
written four ways; ``clinicdesk``: a clinic group's patient desk; and, written for the next
round and measured before any rule was changed for them, ``rentdesk``: a car-rental desk
answering in JSON text, to scenario briefs in the second person; ``mealdesk``: a
food-delivery desk of plain dicts and ``TypedDict`` orders; ``claimdesk``: an insurer's
claims desk of pydantic models; ``ticketdesk``: a ticketing desk of dataclasses; and, a
round later, measured the same way, ``parceldesk``: a courier's, in JSON text, codes
written in groups; ``utilitydesk``: an energy supplier's, nested dicts, second-person
briefs; ``letdesk``: a lettings agency's, dataclasses and ``TypedDict`` inputs, choices
listed in words; ``librarydesk``: a library's, one pydantic request model a tool; and, a
round later again, ``airdesk``: an airline's, JSON text, Google docstrings, a database of
1,900 flights; ``bankdesk``: a bank's, money in pence, ``Enum`` and ``Literal`` choices;
``pharmadesk``: a pharmacy's, reStructuredText docstrings, writes answering in sentences;
``saasdesk``: a software company's billing, pydantic models and ``Field`` descriptions;
``gearshop``: a web shop's, product variants, second-person scenarios; ``coachdesk``: a coach
operator's, passengers and payment splits; ``coursedesk``: a learning platform's,
dataclasses, parameters described in lines of their own; ``fleetdesk``: a van-leasing
desk's, long e-mails with signature blocks; and, measured on the rules those asked for,
``vetdesk``: a vet group's, every tool ``async def``; ``councildesk``: a council's, JSON text,
numpy docstrings, ``Enum`` choices, second-person scenarios; ``gymdesk``: a gym chain's,
pydantic models, members' chat as typed; ``storagedesk``: a self-storage company's,
dataclasses, UUID rental ids; and, measured on the rules those asked for and not changed
for them, ``eventdesk``: a conference organiser's; ``grocerydesk``: a grocer's;
``innsdesk``: a hotel group's; ``repairdesk``: a repair and warranty desk's; and, later,
each batch measured on the rules before it, ``furnishdesk``, ``broadbanddesk``,
``tourdesk``, ``hrdesk``, ``dealerdesk``, ``unidesk``, ``cinemadesk``, ``charitydesk``;
``bikedesk``: a bike-share scheme's, JSON text; ``mortgagedesk``: a building society's,
``Annotated`` ``Field`` parameters, money in pence; ``marinadesk``: a marina's, numpy
docstrings and dataclasses; ``marketdesk``: a marketplace's, a buyer's order list, a
catalogue by name and variants; ``raildesk``: a train company's, plain-text answers and
ids with spaces; ``roadsidedesk``: a breakdown-cover company's, ``async def`` and
``TypedDict`` inputs; ``removalsdesk``: a removals firm's, frozen dataclasses and
``Enum`` choices; ``petsitdesk``: a pet-sitting marketplace's, UUID ids; ``skidesk``: a
ski resort's, keyword-only parameters; ``laundrydesk``: a laundry service's, JSON text and
a price list; ``recruitdesk``: a staffing agency's, ``TypedDict`` results;
``domaindesk``: a domain registrar's, DNS records by their number in a zone; and, on the
rules those asked for and not changed for them, ``dentaldesk``: a dental group's, one
pydantic request model a write; ``parkingdesk``: an airport car park's, plates written
several ways; ``solardesk``: a solar installer's, dataclass inputs; ``tutordesk``: a
tutoring marketplace's, numeric ids and slugs; and, measured on those rules before any
change, ``cruisedesk``: a cruise line's, Google docstrings, a guest's bookings as a list of
references; ``opticdesk``: an optician's, JSON text, errors as text, a catalogue by name;
``mobiledesk``: a mobile network's, ``Annotated`` ``Field`` parameters and ``Literal``
choices; ``printdesk``: a print shop's, numpy docstrings, a calculator; ``hiredesk``: a car
rental's, nested pick-up and drop-off records, branches keyed by code; ``floristdesk``: a
florist's, dataclass results, exchanges by two lists of item ids; ``pensiondesk``: a pension
provider's, parameters described in prose, funds by name; ``golfdesk``: a golf club's,
integer and text ids side by side; and, on the rules those asked for, ``shoedesk``: a shoe
shop's, JSON text, variants keyed by their item ids; ``campdesk``: a holiday park group's,
guests as a list of records; ``winedesk``: a wine club's, one pydantic request model a tool;
``newsdesk``: a publisher's, ``TypedDict`` inputs described in their class docstrings, dates
written ``DD/MM/YYYY``). Their
contracts are what ``contracts infer`` drafts, unedited; every correct call is allowed from
the oracle goal and from the request alone, but for the refusals listed, and every task
whose calls are all allowed ends with the database as its ground truth leaves it. Bad
folders, modules, contracts and tasks are named, never a traceback."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import FIXTURES

from planfilter.cli import cli
from planfilter.core.errors import PlanfilterError
from planfilter.infer.python_tools import read_python_source
from planfilter.suites import load_bench_suite
from planfilter.suites.base import SuiteOptions
from planfilter.suites.database import run_tool

DESKS = ("gadgetdesk", "staydesk", "carrierdesk", "clinicdesk", "rentdesk", "mealdesk",
         "claimdesk", "ticketdesk", "parceldesk", "utilitydesk", "letdesk", "librarydesk",
         "airdesk", "bankdesk", "pharmadesk", "saasdesk", "gearshop", "coachdesk",
         "coursedesk", "fleetdesk", "vetdesk", "councildesk", "gymdesk", "storagedesk",
         "eventdesk", "grocerydesk", "innsdesk", "repairdesk", "furnishdesk", "broadbanddesk",
         "tourdesk", "hrdesk", "dealerdesk", "unidesk", "cinemadesk", "charitydesk",
         "bikedesk", "mortgagedesk", "marinadesk", "marketdesk", "raildesk", "roadsidedesk",
         "removalsdesk", "petsitdesk", "skidesk", "laundrydesk", "recruitdesk", "domaindesk",
         "dentaldesk", "parkingdesk", "solardesk", "tutordesk", "cruisedesk", "opticdesk",
         "mobiledesk", "printdesk", "hiredesk", "floristdesk", "pensiondesk", "golfdesk",
         "shoedesk", "campdesk", "winedesk", "newsdesk", "toydesk", "flightdesk", "spadesk",
         "bookdesk", "appliancedesk", "museumdesk", "streamdesk", "schooldesk", "cardesk",
         "petinsdesk", "hoteldesk", "subsdesk", "electronicsdesk", "trainticketdesk", "yogadesk",
         "courierdesk", "theatredesk", "jewellerydesk", "coworkdesk", "photodesk", "bakerydesk",
         "boilerdesk", "tyredesk", "visadesk", "tailordesk", "drivingdesk", "weddingdesk",
         "concertdesk", "travelinsdesk", "toolhiredesk", "gamingdesk", "evchargedesk",
         "physiodesk", "yachtdesk", "langschooldesk", "cleaningdesk", "loandesk", "loungedesk",
         "kitchendesk", "nurserydesk", "hosteldesk", "musicdesk", "merchdesk", "groomingdesk",
         "windowdesk", "racedesk", "escapedesk", "hearingdesk", "coffeedesk", "tattoodesk",
         "gardendesk", "carwashdesk", "instrumentdesk", "bikesharedesk", "cateringdesk",
         "divedesk", "taxidesk", "fuelcarddesk", "translatedesk", "handydesk", "beautydesk",
         "labdesk", "sellerdesk", "vanhiredesk", "carsharedesk", "cycletourdesk",
         "smartmeterdesk", "petfooddesk", "autoshopdesk", "laptopleasedesk", "festivaldesk",
         "boatrentaldesk", "contactlensdesk", "simdesk", "salondesk", "mattressdesk",
         "recorddesk", "shuttledesk", "cheesedesk", "gadgetcoverdesk", "villadesk",
         "waterdesk", "sparepartsdesk", "magazinedesk", "resaledesk", "dogwalkdesk",
         "swimschooldesk", "lockerdesk", "bowlingdesk", "massagedesk", "leasedesk",
         "unitsdesk", "forexdesk", "vendingdesk", "agriturismodesk", "lostpropertydesk",
         "bulbdesk", "webinardesk", "pianodesk", "pawndesk", "allotmentdesk", "dormdesk",
         "fulfilmentdesk", "cookschooldesk", "sportshalldesk", "rotadesk", "kayakdesk",
         "drycleandesk", "assemblydesk", "climbdesk", "stationerydesk", "surfdesk",
         "studiodesk", "funeraldesk", "sofadesk", "podcastdesk", "craftdesk", "auctiondesk",
         "licensedesk", "warrantydesk", "ryokandesk", "carpetdesk", "linkdesk", "telcodesk",
         "boxdesk", "treedesk", "barberdesk", "cabindesk", "docdesk", "ledgerdesk",
         "smarthomedesk", "koreadesk", "indiadesk", "swissdesk", "mainframedesk", "putdesk",
         "gulfdesk", "teadesk", "spadeskhu", "scooterdesk", "islanddesk", "tradesdesk",
         "pastedesk", "lessondesk", "russiadesk", "argsdesk", "thaidesk", "portaldesk",
         "israeldesk", "manilladesk", "nairobidesk", "sheetdesk", "instadesk", "jakartadesk",
         "courtdesk", "cryptodesk", "soapdesk", "jaipurdesk", "riyadhdesk", "berthdesk",
         "brazildesk", "taiwandesk", "logfmtdesk", "formdesk", "quebecdesk", "protodesk",
         "htmlmaildesk", "persiandesk", "pizzadesk", "keysmithdesk", "tbilisidesk",
         "osakadesk", "hardwaredesk", "athensdesk", "tollsdesk", "plantdesk", "odatadesk",
         "querydesk", "fhirdesk", "krakowdesk", "bnbdesk", "rowsdesk", "addisdesk",
         "shanghaidesk")


@pytest.fixture(scope="module")
def drafted(tmp_path_factory) -> dict[str, Path]:
    """Each desk's contracts as ``planfilter contracts infer`` drafts them, unedited."""
    out = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(FIXTURES))
        for desk in DESKS:
            path = tmp_path_factory.mktemp(desk) / "drafted.yaml"
            result = CliRunner().invoke(cli, ["contracts", "infer", f"python:{desk}.tools",
                                              "--embedder", "none", "--out", str(path)],
                                        catch_exceptions=False)
            assert result.exit_code == 0, result.output
            out[desk] = path
    return out


def _replayed(desk: str, registry: Path, goal: str, out: Path) -> list[dict]:
    result = CliRunner().invoke(cli, [
        "run", "--suite", f"tools:{FIXTURES / desk}", "--registry", str(registry),
        "--models", "oracle", "--methods", "all", "--approve-risky", "always",
        "--goal", goal, "--no-plots", "--out", str(out)], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]


#: Correct calls refused from the request alone: (task, tool, kind). The user names their
#: own line, or their own account, and the task changes another line of it too, or writes
#: to the other members of their group order (the request binds the user's value; which
#: others they meant, no rule can read); a transfer PIN stated beside the account's PIN is
#: read as that PIN; a return day without its year ("18 July") gives no value, and the
#: pick-up day the request dates is bound to the return too.
#: Correct calls refused even from the oracle goal, where the ground truth leaves out the read
#: that shows a value: an airport's code the model knows ("New York" is JFK) and the flight
#: found with it; a seat next to the one the user named, worked out from the cabin's layout;
#: an e-mail address put together from a name and the company's domain.
REFUSED_FROM_THE_ORACLE = {
    "airdesk": [("seats_together_premium", "assign_seats", "invented"),
                ("change_return_with_fee", "search_flights", "invented"),
                ("change_return_with_fee", "change_flight", "invented"),
                ("cheaper_flight_residual_voucher", "search_flights", "invented"),
                ("cheaper_flight_residual_voucher", "change_flight", "invented")],
    "saasdesk": [("quillstone_remove_two_and_credit", "deactivate_user", "invented")] * 2,
    # a branch's id the ground truth knows without the read that lists branches; seats
    # worked out from a seat map (a row's letter and a place in its string)
    "dealerdesk": [("dd-05-recall-letter-plus-mot", "create_booking", "invented")],
    # a product's id the model works out from its item's id ("410901" of BQ-109), with
    # no read of the catalogue, and the larger size of it that read would have shown
    "floristdesk": [("bigger_office_flowers_on_wednesdays", "get_product", "invented"),
                    ("bigger_office_flowers_on_wednesdays", "update_subscription",
                     "invented")],
    # an extra's code no read of the ground truth shows, for "drop the hook-up" (the
    # description glosses it "electric hook-up")
    "campdesk": [("campervan_to_tent_cheapest", "remove_extras", "invented")],
    "cinemadesk": [("family_matinee_booking", "create_booking", "invented"),
                   ("exchange_cinema_cancelled_show", "exchange_booking", "invented"),
                   ("gift_card_split_booking", "create_booking", "invented"),
                   ("imax_group_with_food", "create_booking", "invented")],
    # a performance's id the model puts together from its date and the form the
    # description's example shows, with no read of the performances (and the seats the
    # refused read would have listed)
    "theatredesk": [("renew_friends_then_book_private_lives", "list_available_seats",
                     "invented"),
                    ("renew_friends_then_book_private_lives", "create_booking", "invented")],
    # a necklace's length ("16in") no read of the ground truth shows
    "jewellerydesk": [("book_insurance_valuation_friday", "book_valuation", "invented")],
    # a cake's design code no read of the ground truth shows (it lists orders by description)
    "bakerydesk": [("switch_to_victoria_sponge_for_nut_allergy", "get_cake_design",
                    "invented")],
    # a postcode no read of the ground truth shows (the policy, which holds it, is not read)
    "boilerdesk": [("missed_visit_complaint_and_rebook", "find_slots", "invented"),
                   ("breakdown_with_same_engineer", "find_slots", "invented")],
    # the letters that start a postcode a read shows ("HG" of "HG3 ..."), a part of a value,
    # and the slot the refused read would have listed
    "kitchendesk": [("first_survey_friday_morning", "list_survey_slots", "invented"),
                    ("first_survey_friday_morning", "book_survey", "invented")],
    # an office's name of five words, "de Valencia" added to what the request says
    "langschooldesk": [("visa_attendance_certificate", "issue_attendance_certificate",
                        "invented")],
    # a service's code the request names in other words ("de-shed"), with no read of the
    # services
    "groomingdesk": [("upgrade_services_text_total", "change_appointment_services",
                      "invented")],
    # a valet service's code no read of the ground truth shows (the site's services, which
    # list it, are not read)
    "carwashdesk": [("swap_car_and_book_mini_valet", "book_valet", "invented")],
    # an event's id the model takes from the description's example ("BRK25", "shown on
    # every order": no order is read), and the products the refused read would have listed;
    # a parking pass's code no read of the ground truth shows
    "festivaldesk": [("glamping_cheapest_for_two", "list_products", "invented"),
                     ("glamping_cheapest_for_two", "add_upgrade", "invented"),
                     ("campervan_hookup_and_sister_parking", "list_products", "invented"),
                     ("campervan_hookup_and_sister_parking", "add_upgrade", "invented"),
                     ("campervan_hookup_and_sister_parking", "add_parking_pass", "invented"),
                     ("cancel_campervan_switch_to_car", "add_parking_pass", "invented")],
}
# the ground truth looks each customer up by the address the e-mail came from, which the
# pasted e-mail does not show (refused as made up), and then calls on what that lookup
# would have found
REFUSED_FROM_THE_ORACLE["sparepartsdesk"] = [(task, tool, "invented") for task, tools in (
    ("return_wrong_drain_pump", ("find_customer", "list_orders", "get_order", "open_return")),
    ("refund_late_next_day_delivery", ("find_customer", "list_orders", "get_order",
                                       "issue_refund")),
    ("book_engineer_friday_morning", ("find_customer", "get_customer", "book_engineer_visit")),
    ("order_cheaper_dishwasher_door_seal", ("find_customer", "place_order")),
    ("refund_missing_filter_set", ("find_customer",)),
    ("new_address_and_cancel_duplicate", ("find_customer",)),
    ("cancel_fridge_visit_fixed_myself", ("find_customer", "list_visits", "cancel_visit")),
    ("trade_restock_pumps_and_seals", ("find_customer", "place_order")),
    ("neighbour_note_and_cancel_engineer", ("find_customer", "list_orders", "add_order_note",
                                            "list_visits", "cancel_visit")),
    ("check_brushes_fit_then_order", ("find_customer", "place_order"))) for tool in tools]
# a service's code made of another one the owner's record holds and the user's words
# ("30-minute solo walks": ``WALK30_SOLO`` beside ``WALK60_SOLO``), with no read of the
# services
REFUSED_FROM_THE_ORACLE["dogwalkdesk"] = [("new_schedule_for_puppy", "create_schedule",
                                           "invented")]
# an extra's code for what the user says in Spanish ("la salida tardía"), with no read of
# the extras
REFUSED_FROM_THE_ORACLE["villadesk"] = [("swap_pool_heating_for_late_checkout", "add_extras",
                                         "invented")]
# a therapist's id for the name the user gives ("with Anna") and a treatment's code for its
# name ("a pregnancy massage"), with no read of the therapists or the treatments
REFUSED_FROM_THE_ORACLE["massagedesk"] = [
    (task, tool, "invented") for task, tools in (
        ("package_deep_tissue_tuesday_fortnight", ("find_available_slots", "book_appointment")),
        ("buy_cheaper_physio_block_and_book", ("find_available_slots", "book_appointment")),
        ("swap_monday_for_pregnancy_massage", ("find_available_slots", "book_appointment")),
        ("latest_hot_stone_day_after_tomorrow", ("find_available_slots", "book_appointment")),
        ("block_of_physio_tuesdays", ("find_available_slots",) * 3 + ("book_block",)),
        ("sports_package_book_and_summary", ("find_available_slots", "book_appointment")))
    for tool in tools]
# a book's ISBN no read of the ground truth shows (the order lists its items by title),
# for the return and the new order of it
REFUSED_FROM_THE_ORACLE["russiadesk"] = [("wrong_strugatsky_delivered", tool, "invented")
                                         for tool in ("create_return", "place_order")]
# an occasion's word the user never says ("Wedding" of "we're getting married")
REFUSED_FROM_THE_ORACLE["sheetdesk"] = [("new_wedding_booking", "create_hire_order",
                                         "invented")]
# an office's code for the office the user names, with no read of the offices
REFUSED_FROM_THE_ORACLE["lostpropertydesk"] = [("switch_post_to_collection", "book_collection",
                                                "invented")]
# a technician's id for the first name the user gives ("could Priya come"), with no read
# of the technicians
REFUSED_FROM_THE_ORACLE["pianodesk"] = [("repair_visit_preferred_technician", tool, "invented")
                                        for tool in ("search_availability",
                                                     "create_appointment")]
# a court's or a piece of kit's code for the name the user gives ("Court B", "Squash Court
# 1", "two rackets"), with no read of the facilities or the equipment, and the slot keys
# built of them (where a description writes a court's code, "CRT-B", outside its
# examples, the booking that takes the code alone is allowed)
REFUSED_FROM_THE_ORACLE["sportshalldesk"] = [
    ("book_court_b_with_credit", "get_slot", "invented"),
    ("book_court_b_with_credit", "get_slot", "invented"),
    ("duplicate_booking_keep_court_a", "add_equipment_hire", "invented"),
    ("swap_friday_badminton_for_squash", "get_slot", "invented"),
    ("swap_friday_badminton_for_squash", "book_slot", "invented")]
# a dropdown's choice ("Paused") no description or read shows ("Yes" the tool set's
# descriptions write), and a contact's e-mail address no read of the ground truth shows
REFUSED_FROM_THE_ORACLE["rotadesk"] = [
    ("driver_off_after_knee_op", "update_cell", "invented"),
    ("jobcentre_extend_voucher", "send_email", "invented")]
# a sale's id for the month the user names ("the March sale"), with no read of the sales,
# and a lot's id made of it
REFUSED_FROM_THE_ORACLE["auctiondesk"] = [
    ("commission_bid_lot_47", "get_lot", "invented"),
    ("commission_bid_lot_47", "register_for_sale", "invented"),
    ("commission_bid_lot_47", "place_absentee_bid", "invented"),
    ("telephone_bidding_two_lots", "list_lots", "invented"),
    ("telephone_bidding_two_lots", "list_lots", "invented"),
    ("telephone_bidding_two_lots", "register_for_sale", "invented")]
# a customer looked up by a postcode district ("RG17") the user never gives (they say
# "Kintbury"), and the invoices and the refund the refused lookup would have led to
REFUSED_FROM_THE_ORACLE["treedesk"] = [
    ("pryce_double_payment_refund", tool, "invented")
    for tool in ("find_customer", "list_invoices", "refund_invoice")]
# a top folder ("/Projects/") no description or read shows, and the drafts its listing
# would have shown
REFUSED_FROM_THE_ORACLE["docdesk"] = [
    ("trash_menu_drafts_keep_final", tool, "invented")
    for tool in ("list_folder", "trash_documents")]
# a room type's code ("STD") for "a standard room", where the codes' examples are of
# several lengths ("STD", "SUP", "JS"), with no read of the hotel's room types
REFUSED_FROM_THE_ORACLE["spadeskhu"] = [
    ("bp_downgrade_single_refund_difference", tool, "invented")
    for tool in ("check_availability", "modify_booking")]
# a bike's make the user never says ("Honda" of "xe Vision") and no read shows
REFUSED_FROM_THE_ORACLE["scooterdesk"] = [("book_workshop_after_3pm", "book_repair",
                                           "invented")]
REFUSED_FROM_THE_REQUEST = {
    "russiadesk": REFUSED_FROM_THE_ORACLE["russiadesk"],
    # and "collection ... between 12 and 3" binds 12 as the collection's day and its slot's
    # start, which the tools take as a spreadsheet's day number and a fraction of a day (and
    # the order the refused call would have made is not there to confirm)
    "sheetdesk": REFUSED_FROM_THE_ORACLE["sheetdesk"] + [
        ("trade_book_and_confirm_racecourse", "create_hire_order", "substituted"),
        ("trade_book_and_confirm_racecourse", "confirm_hire_order", "invented")],
    "auctiondesk": REFUSED_FROM_THE_ORACLE["auctiondesk"],
    "spadeskhu": REFUSED_FROM_THE_ORACLE["spadeskhu"],
    "scooterdesk": REFUSED_FROM_THE_ORACLE["scooterdesk"],
    # a bare domain in capitals ("My domain is TRANCERAMICS.COM") is not read; the CNAME's
    # target the request quotes ("shops.myshopify.com") binds as the domain (the listing of
    # the user's domain, a read, is allowed; the record it adds is not)
    "pastedesk": [("connect_domain_to_shopify", "add_dns_record", "substituted")],
    "treedesk": REFUSED_FROM_THE_ORACLE["treedesk"],
    "docdesk": REFUSED_FROM_THE_ORACLE["docdesk"],
    # "serial sm 8hkn 2w9x" is read in pieces ("8hkn") and for the hub's serial too;
    # "add the camera to my hub: serial CX-4TZ9-M7R2" binds the camera's serial to the
    # hub's
    "smarthomedesk": [("pair_new_plug_mini_house_hub", "register_device", "substituted"),
                      ("outdoor_camera_needs_plan_upgrade", "register_device",
                       "substituted")],
    # "we moved in last Saturday" is dated from this machine's clock; the host's day is
    # another (its own fixed date)
    "mainframedesk": [("joint_holders_moved_house", "addr_chg", "substituted")] * 2,
    "sportshalldesk": REFUSED_FROM_THE_ORACLE["sportshalldesk"],
    "rotadesk": REFUSED_FROM_THE_ORACLE["rotadesk"],
    "pianodesk": REFUSED_FROM_THE_ORACLE["pianodesk"],
    # "says I used 42 cubic metres ... it says 594.0": the figure four words and more from
    # the meter's words is not read, the one before "cubic metres" is
    "allotmentdesk": [("dispute_estimated_water_bill", "record_water_reading", "substituted")],
    # "45 pounds for cleaning ... take that off and send me the rest": the amount the
    # deduction and the refund both carry is read as 45, the refund is the rest
    "dormdesk": [("deposit_settle_after_checkout", "refund_deposit", "substituted")],
    "massagedesk": REFUSED_FROM_THE_ORACLE["massagedesk"],
    "lostpropertydesk": REFUSED_FROM_THE_ORACLE["lostpropertydesk"],
    "sparepartsdesk": REFUSED_FROM_THE_ORACLE["sparepartsdesk"],
    "dogwalkdesk": REFUSED_FROM_THE_ORACLE["dogwalkdesk"],
    # as from the oracle, and the amount a trusted inspection shows kept of a deposit, where
    # the request's "our €600 damage deposit" is read as the amount to keep
    "villadesk": [*REFUSED_FROM_THE_ORACLE["villadesk"],
                  ("settle_deposit_after_damage", "settle_deposit", "substituted")],
    # a city the user names ("in New York") for a parameter that takes a country, which the
    # model knows and no read shows, and the pass the refused read would have listed
    "simdesk": [("new_york_ten_days_pass", "list_roaming_passes", "substituted"),
                ("new_york_ten_days_pass", "buy_roaming_pass", "invented")],
    "carwashdesk": REFUSED_FROM_THE_ORACLE["carwashdesk"],
    # two tracking numbers, the word "tracking" before the first only: the second is read
    # as no value of it
    "sellerdesk": [("add_tracking_two_boxes", "update_package_tracking", "substituted")],
    "festivaldesk": REFUSED_FROM_THE_ORACLE["festivaldesk"],
    # "yesterday", read against this machine's today, where the tool set's world keeps a
    # date of its own
    "laptopleasedesk": [("stolen_iphone_on_tram", "report_loss", "substituted")],
    "theatredesk": REFUSED_FROM_THE_ORACLE["theatredesk"],
    "jewellerydesk": REFUSED_FROM_THE_ORACLE["jewellerydesk"],
    "bakerydesk": REFUSED_FROM_THE_ORACLE["bakerydesk"],
    "boilerdesk": REFUSED_FROM_THE_ORACLE["boilerdesk"],
    # as from the oracle, for another survey too; and the versioned quote ("Q-1047-v2") of
    # the one the user names ("Q-1047"), read in a record the draft marks untrusted (it
    # carries notes others write), and the lines the refused read would have shown
    "kitchendesk": [*REFUSED_FROM_THE_ORACLE["kitchendesk"],
                    ("move_survey_to_thursday_pm", "list_survey_slots", "invented"),
                    ("move_survey_to_thursday_pm", "book_survey", "invented"),
                    ("remove_appliances_email_total", "get_quote", "substituted"),
                    ("remove_appliances_email_total", "revise_quote", "invented")],
    "langschooldesk": REFUSED_FROM_THE_ORACLE["langschooldesk"],
    "groomingdesk": REFUSED_FROM_THE_ORACLE["groomingdesk"],
    # "the last start wave", a wave no read of the ground truth shows
    "racedesk": [("new_phone_contact_and_later_wave", "change_wave", "invented")],
    # clinics named by their districts ("Cribbs Causeway", "Clifton") where clinics are
    # listed by city (Bristol, which the model knows), and what the refused read would
    # have shown
    "hearingdesk": [("left_aid_repair_at_cribbs_with_loaner", "list_clinics", "substituted"),
                    ("left_aid_repair_at_cribbs_with_loaner", "open_repair", "invented"),
                    ("left_aid_repair_at_cribbs_with_loaner", "list_loan_devices",
                     "invented"),
                    ("left_aid_repair_at_cribbs_with_loaner", "assign_loan_device",
                     "invented")],
    "carrierdesk": [("hotspot_plan_upgrade", "change_plan", "substituted"),
                    ("port_in_wife", "port_in_number", "substituted")],
    "rentdesk": [("rd-06-new-one-way-booking", "create_reservation", "substituted")],
    "mealdesk": [("cancel_group_order_notify_members", "send_message", "substituted")] * 2,
    # as from the oracle: a city the user names is no airport's code
    "airdesk": REFUSED_FROM_THE_ORACLE["airdesk"],
    # the payee's account number the request states, read as the user's own; a garage's
    # town read as the city the garages are listed under
    "bankdesk": [("new_payee_pay_plumber", "get_account", "substituted"),
                 ("new_payee_pay_plumber", "make_transfer", "substituted")],
    "saasdesk": REFUSED_FROM_THE_ORACLE["saasdesk"],
    "fleetdesk": [("castleford-cancel-and-rebook-service", "list_garages", "substituted")],
    # the user's bank account number for a Direct Debit, read as their council tax account
    # (the read of the account the user gave is allowed: a read may take another of the
    # user's values)
    "councildesk": [("set_up_council_tax_direct_debit", "set_up_direct_debit", "substituted"),
                    ("clear_arrears_split_then_direct_debit", "set_up_direct_debit",
                     "substituted")],
    "dealerdesk": REFUSED_FROM_THE_ORACLE["dealerdesk"],
    # and a cinema named by its district ("at Greenwich") where cinemas are listed by city
    "cinemadesk": [*REFUSED_FROM_THE_ORACLE["cinemadesk"][:3],
                   ("imax_group_with_food", "list_cinemas", "substituted"),
                   ("imax_group_with_food", "search_showtimes", "invented"),
                   ("imax_group_with_food", "get_seat_map", "invented"),
                   ("imax_group_with_food", "get_concessions_menu", "invented"),
                   ("imax_group_with_food", "create_booking", "invented")],
    # an amount the user states beside the one credited; a time the user asks for beside
    # the one their tier gives
    "innsdesk": [("macleod_minibar_parking_credit", "credit_folio_charge", "substituted"),
                 ("raman_early_late_free", "request_early_checkin_late_checkout",
                  "substituted")],
    # a price the user states beside the difference refunded
    "bikedesk": [("partial_refund_as_credit", "refund_trip_charge", "substituted")],
    "floristdesk": REFUSED_FROM_THE_ORACLE["floristdesk"],
    "campdesk": REFUSED_FROM_THE_ORACLE["campdesk"],
    # a licence's country the model knows from the request ("GB" for a licence of this
    # country), where the place the car is picked up from was read as a country
    "hiredesk": [("upgrade_seven_seater_add_wife", "add_additional_driver", "substituted")],
    # "Terminal 1" read as the terminal `1` where the call takes `T1`; the car's
    # registration written in two words ("wp19 ozt") read as the car park's id; an
    # airport's code the model knows ("Manchester" is MAN, which only an example shows),
    # and what the refused reads would have shown
    "parkingdesk": [("lost_ticket_short_stay", "process_lost_ticket", "substituted"),
                    ("book_cheapest_manchester_t1", "search_products", "invented"),
                    ("book_cheapest_manchester_t1", "get_quote", "invented"),
                    ("book_cheapest_manchester_t1", "create_booking", "invented"),
                    ("meet_and_greet_for_wifes_car_with_valet", "search_products",
                     "substituted"),
                    ("meet_and_greet_for_wifes_car_with_valet", "list_addons", "invented"),
                    ("meet_and_greet_for_wifes_car_with_valet", "create_booking", "invented")],
}

# And sixteen more (two batches of eight), each measured on the rules before it, then
# mended; what they still refuse:
# a coach's surname the user never says, with no read of the coaches ("Marta's cardio
# tennis"), and the sessions that read would list
REFUSED_FROM_THE_ORACLE["courtdesk"] = [
    ("cardio_tennis_mum_and_daughter", "book_coaching_session", "invented"),
    ("cardio_tennis_mum_and_daughter", "book_coaching_session", "invented"),
    ("cardio_tennis_mum_and_daughter", "list_coaching_sessions", "invented"),
    ("court_and_junior_squad_saturday", "book_coaching_session", "invented"),
    ("court_and_junior_squad_saturday", "list_coaching_sessions", "invented")]
# an airport's code the model knows ("MED" for Madinah), with no read of the airports, and
# the flight and the booking after it
REFUSED_FROM_THE_ORACLE["riyadhdesk"] = [
    ("cheapest_morning_flight_to_madinah", "book_flight", "invented"),
    ("cheapest_morning_flight_to_madinah", "make_payment", "invented"),
    ("cheapest_morning_flight_to_madinah", "search_flights", "invented"),
    ("sister_visa_status_then_flight", "book_flight", "invented"),
    ("sister_visa_status_then_flight", "search_flights", "invented")]
# a pick-up address put together from the one the booking holds and the user's "terminal
# 3" ("Bandara Soekarno-Hatta Terminal 3" for "... Terminal 1A")
REFUSED_FROM_THE_ORACLE["jakartadesk"] = [
    ("reschedule_airport_pickup_new_flight", "update_trip_details", "invented")]
# a room's code ("SP-LB" for "your Library room") with no read of the rooms
REFUSED_FROM_THE_ORACLE["htmlmaildesk"] = [
    ("zielinski_new_birthday_enquiry_viewing", "create_enquiry", "invented")]
for _desk in ("courtdesk", "riyadhdesk", "jakartadesk", "htmlmaildesk"):
    REFUSED_FROM_THE_REQUEST[_desk] = list(REFUSED_FROM_THE_ORACLE[_desk])
# From the request: the user's own member number where the court is booked in their
# daughter's; "move it to 7:30" binds 7:30 to the booking's present start too
REFUSED_FROM_THE_REQUEST["courtdesk"] += [
    ("court_and_junior_squad_saturday", "book_court", "substituted"),
    ("move_thursday_court_later", "move_court_booking", "substituted")]
# "Madinah" binds the city where the search takes its airport's code
REFUSED_FROM_THE_REQUEST["riyadhdesk"] = [
    (task, tool, "substituted" if tool == "search_flights" else kind)
    for task, tool, kind in REFUSED_FROM_THE_REQUEST["riyadhdesk"]]
# an address written by its ends ("TXk2…J8Pq") binds the withdrawal's id too
REFUSED_FROM_THE_REQUEST["cryptodesk"] = [
    ("hacked_account_freeze_remove_address_cancel", "cancel_withdrawal", "substituted")]
# "draws just under 2 m" binds 2 as the boat's beam and draft; the record holds 3.85, 1.95
REFUSED_FROM_THE_REQUEST["berthdesk"] = [
    ("visitor_berth_penmor_bank_holiday", "search_visitor_berths", "substituted")]
# a form's postcode field is the user's office; their words say the repair is at home
# (the claim's postcode), and the contractor the refused search would have listed
REFUSED_FROM_THE_REQUEST["formdesk"] = [
    ("book_plasterer_claim_ref_in_policy_field", "book_repair", "invented"),
    ("book_plasterer_claim_ref_in_policy_field", "find_contractors", "substituted")]

# a flat's address a telephone transcript says in numbers of words ("flat two forty two elm
# grove"), and the address the refused call would have made
REFUSED_FROM_THE_ORACLE["pizzadesk"] = [
    ("redirect_order_to_girlfriends_flat", tool, "invented")
    for tool in ("add_customer_address", "change_delivery_address")]
# a name written in the other script than the user's ("Mariam Kapanadze" searched for as
# "მარიამ კაპანაძე", and back), and what the refused search would have led to
REFUSED_FROM_THE_ORACLE["tbilisidesk"] = [
    ("move_tasting_name_in_georgian", tool, "invented")
    for tool in ("find_customers", "list_bookings", "reschedule_tour")] + [
    ("kvareli_shift_one_day_and_invoice", tool, "invented")
    for tool in ("find_customers", "list_bookings", "change_stay_dates", "issue_invoice")]
# a plate's country nobody names nor shows ("FR" of a French plate and telephone number)
REFUSED_FROM_THE_ORACLE["tollsdesk"] = [
    ("new_car_notice_register_and_pay", "register_vehicle", "invented")]
for _desk in ("pizzadesk", "tbilisidesk", "tollsdesk"):
    REFUSED_FROM_THE_REQUEST[_desk] = list(REFUSED_FROM_THE_ORACLE[_desk])
# and a second ("BE"), where the account's other vehicle shows "FR" only from the oracle's
# own run
REFUSED_FROM_THE_REQUEST["tollsdesk"] += [
    ("rental_car_and_sold_clio", "register_vehicle", "invented")]

# an entity set no description names ("SalesInvoiceLines", reached only by navigation)
REFUSED_FROM_THE_ORACLE["odatadesk"] = [
    ("quote_paper_toner_and_history", "aggregate_entity_set", "invented")]
# a parcel's number two figures of which differ from the one the user copies from a text
# message ("6243 3431 ..." for 624343316939...)
REFUSED_FROM_THE_ORACLE["krakowdesk"] = [
    ("redirect_book_to_mothers_address_krakow", tool, "invented")
    for tool in ("get_parcel", "redirect_parcel")]
# a town's name in another language than the user's ("Naqamtee" is Nekemte)
REFUSED_FROM_THE_ORACLE["addisdesk"] = [
    ("oromo_parcel_to_nekemte_receiver_pays", tool, "invented")
    for tool in ("quote_parcel", "create_parcel")]
for _desk in ("odatadesk", "krakowdesk", "addisdesk"):
    REFUSED_FROM_THE_REQUEST[_desk] = list(REFUSED_FROM_THE_ORACLE[_desk])
# the amount of cash on delivery the user asks a quote for binds the refund's amount too
REFUSED_FROM_THE_REQUEST["krakowdesk"] += [
    ("accepted_claim_to_balance_and_quote", "issue_refund", "substituted")]
# a date of birth binds the date a report is searched by, and the report the refused
# search would have shown
REFUSED_FROM_THE_REQUEST["fhirdesk"] = [
    ("thyroid_result_callback", "search_diagnostic_report", "substituted"),
    ("thyroid_result_callback", "create_communication_request", "invented")]


@pytest.mark.parametrize("goal", ["oracle", "resolve"])
@pytest.mark.parametrize("desk", DESKS)
def test_every_correct_call_of_a_tool_set_nobody_reviewed_is_allowed(drafted, tmp_path, desk,
                                                                     goal):
    lines = _replayed(desk, drafted[desk], goal, tmp_path / "run")
    steps = [line for line in lines if line["type"] == "step"]
    runs = [line for line in lines if line["type"] == "run"]
    refused = [(s["task"], s["chosen"], s["decision"]) for s in steps
               if s["decision"] != "allowed"]
    expected = (REFUSED_FROM_THE_REQUEST if goal == "resolve" else
                REFUSED_FROM_THE_ORACLE).get(desk, [])
    assert sorted(refused) == sorted(expected)  # tasks may end in any order
    touched = {task for task, _, _ in expected}  # a refusal may leave a later call failing
    assert not [s for s in steps if s["tool_failed"] and s["task"] not in touched]
    failed = {r["task"] for r in runs if not r["success"]}  # the database checks: only a
    assert len(runs) == 14 and failed <= touched  # task something was refused in


def test_a_tools_suite_is_a_database_suite_of_its_own(drafted):
    suite = load_bench_suite(f"tools:{FIXTURES / 'gadgetdesk'}",
                             SuiteOptions(registry=(drafted["gadgetdesk"],)))
    case = suite.cases()[0]
    env = suite.environment(case)
    done = env.execute("get_order_details", {"order_id": "no-such-order"})
    assert not done.ok and "no-such-order" in done.error  # the service's own error, no raise
    calls = suite.ground_truth(case)
    for call in calls:
        assert env.execute(call.tool, call.arguments).ok
    assert env.verdict(None).success  # the database the ground truth leaves
    assert suite.max_steps >= len(calls)
    assert "online shop" not in (suite.system_prompt() or "")


def _tool_set(folder: Path, tools: str, tasks: str = "tasks: [{id: t1, prompt: hi, calls: "
              "[{tool: ping, arguments: {}}]}]") -> Path:
    folder.mkdir(parents=True)
    (folder / "tools.py").write_text(tools)
    (folder / "database.json").write_text('{"pings": 0}')
    (folder / "tasks.yaml").write_text(tasks)
    (folder / "contracts.yaml").write_text(
        "tools:\n- name: ping\n  produces: [pinged]\n  action: update\n  risk: low\n")
    return folder


USING = '''
from contextlib import contextmanager
_DATA = {}

@contextmanager
def using(data):
    _DATA["db"] = data
    yield data
'''


@pytest.mark.parametrize("name, tools, tasks, culprit", [
    ("desk_unused", "def ping() -> str:\n    return 'pong'\n", None, "defines no using(data)"),
    ("desk_other", USING + "def pong() -> str:\n    return 'ping'\n", None,
     "has no function for the tools ['ping']"),
    ("desk_broken", USING + "import nonexistent_module_xyz\n", None, "cannot import it"),
    ("desk_no_list", USING + "def ping() -> str:\n    return 'pong'\n", "tasks: {t1: 1}",
     "expected a list of tasks"),
    ("desk_opaque", USING + "class Opaque:\n    pass\n\ndef ping(x: Opaque) -> str:\n"
     "    return 'pong'\n", None, "tool 'ping': its signature cannot be validated"),
])
def test_a_bad_tool_set_is_named(tmp_path, name, tools, tasks, culprit):
    folder = _tool_set(tmp_path / name, tools, *([tasks] if tasks else []))
    with pytest.raises(PlanfilterError) as raised:
        load_bench_suite(f"tools:{folder}")
    assert culprit in str(raised.value)


def test_the_command_line_names_a_missing_folder_or_contracts(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(cli, ["run", "--suite", f"tools:{tmp_path / 'nowhere'}",
                                  "--models", "oracle", "--out", str(tmp_path / "o")])
    assert missing.exit_code != 0 and "is no folder" in missing.output
    assert "Traceback" not in missing.output
    folder = _tool_set(tmp_path / "desk_without_contracts", USING + "def ping() -> str:\n"
                       "    return 'pong'\n")
    (folder / "contracts.yaml").unlink()
    bare = runner.invoke(cli, ["run", "--suite", f"tools:{folder}", "--models", "oracle",
                               "--out", str(tmp_path / "o2")])
    assert bare.exit_code != 0 and "no contracts: give --registry" in bare.output


def test_what_a_tool_raises_or_cannot_send_is_its_error_result(tmp_path):
    folder = _tool_set(tmp_path / "desk_that_fails", USING + '''
class Opaque:
    pass

def ping() -> str:
    _DATA["db"]["pings"] += 1
    raise RuntimeError("the line is down")

def echo() -> object:
    _DATA["db"]["pings"] += 1
    return Opaque()
''')
    (folder / "contracts.yaml").write_text(
        "tools:\n- name: ping\n  produces: [pinged]\n- name: echo\n  produces: [echoed]\n")
    suite = load_bench_suite(f"tools:{folder}")
    with pytest.raises(PlanfilterError, match="its ground truth fails: ping: the line is down"):
        suite.environment(suite.cases()[0])
    data = {"pings": 0}
    for tool in ("ping", "echo"):
        done = run_tool(suite.toolset, data, tool, {})
        assert not done.ok and done.error.startswith(f"{tool}: ")
    assert data == {"pings": 0}  # a failed call changes nothing


TYPED = "from __future__ import annotations\n" + USING + '''
from typing import NotRequired, Optional, TypedDict


class Seat(TypedDict):
    row: str
    number: int
    label: NotRequired[str]  # text under the __future__ import: 3.11 counts it required


class Booking(TypedDict, total=False):
    seats: list[Seat]
    note: str


def book(booking: Booking, extra: Optional[Seat] = None) -> Booking:
    """Book seats.

    Args:
        booking: the seats, and a note.
        extra: one more seat.
    """
    _DATA["db"]["pings"] += len(booking["seats"])
    return booking


TOOLS = [book]
'''


def test_a_standard_library_typeddict_is_read_on_every_python(tmp_path, monkeypatch):
    # pydantic reads ``typing.TypedDict`` only from Python 3.12: before, a tool taking one
    # could neither be drafted nor validated
    folder = _tool_set(tmp_path / "desk_typed", TYPED, "tasks: [{id: t1, prompt: hi, calls: "
                       "[{tool: book, arguments: {booking: {seats: [{row: A, number: 3}]}}}]}]")
    (folder / "contracts.yaml").write_text("tools:\n- name: book\n  produces: [booked]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    [spec] = read_python_source(f"python:{folder.name}.tools")
    booking = spec.input_schema["properties"]["booking"]
    assert booking["properties"]["seats"]["items"]["required"] == ("row", "number")
    assert "label" in booking["properties"]["seats"]["items"]["properties"]
    assert "required" not in booking  # total=False: no key is required
    assert spec.output_schema["properties"]["seats"]["type"] == "array"
    suite = load_bench_suite(f"tools:{folder}")
    data = {"pings": 0}
    done = run_tool(suite.toolset, data, "book",
                    {"booking": {"seats": [{"row": "A", "number": "3"}]}})
    assert done.ok and data == {"pings": 1} and done.result["seats"][0]["number"] == 3
    wrong = run_tool(suite.toolset, data, "book", {"booking": {"seats": [{"row": "A"}]}})
    assert not wrong.ok and "number" in wrong.error and data == {"pings": 1}


ASYNC = USING + '''
import asyncio


async def ping(times: int) -> dict:
    """Ping the line.

    Args:
        times: how many pings.
    """
    await asyncio.sleep(0)
    _DATA["db"]["pings"] += times
    return {"pings": _DATA["db"]["pings"]}


async def fail() -> str:
    """Fail."""
    _DATA["db"]["pings"] += 1
    raise RuntimeError("the line is down")


TOOLS = [ping, fail]
'''


def test_an_async_tool_is_awaited_on_the_runs_database(tmp_path, monkeypatch):
    """A tool written ``async def`` is drafted as any other and awaited inside ``using``: it
    reads and changes the run's own database, and what it raises is its error result."""
    folder = _tool_set(tmp_path / "desk_async", ASYNC, "tasks: [{id: t1, prompt: hi, calls: "
                       "[{tool: ping, arguments: {times: 2}}]}]")
    monkeypatch.syspath_prepend(str(tmp_path))
    spec = read_python_source(f"python:{folder.name}.tools")[0]
    assert spec.input_schema["properties"]["times"]["type"] == "integer"
    (folder / "contracts.yaml").write_text(
        "tools:\n- name: ping\n  produces: [pinged]\n- name: fail\n  produces: [failed]\n")
    suite = load_bench_suite(f"tools:{folder}")
    data = {"pings": 0}
    done = run_tool(suite.toolset, data, "ping", {"times": "2"})
    assert done.ok and done.result == {"pings": 2} and data == {"pings": 2}
    failed = run_tool(suite.toolset, data, "fail", {})
    assert not failed.ok and "the line is down" in failed.error and data == {"pings": 2}
    case = suite.cases()[0]
    env = suite.environment(case)  # the ground truth, run async, gives the database to reach
    assert not env.verdict(None).success
    assert env.execute("ping", {"times": 2}).ok and env.verdict(None).success


METHODS = USING + '''


class Line:
    """The service, whose tools are its methods."""

    def ping(self, times: int) -> dict:
        """Ping the line.

        Args:
            times: how many pings.
        """
        _DATA["db"]["pings"] += times
        return {"pings": _DATA["db"]["pings"]}


line = Line()
TOOLS = [line.ping]
'''


def test_tools_that_are_methods_of_a_service_object_run(tmp_path, monkeypatch):
    """``TOOLS`` may list bound methods of one object: ``contracts infer`` drafts them and a
    run calls them, though the module has no function of their names."""
    folder = _tool_set(tmp_path / "desk_methods", METHODS, "tasks: [{id: t1, prompt: hi, "
                       "calls: [{tool: ping, arguments: {times: 2}}]}]")
    monkeypatch.syspath_prepend(str(tmp_path))
    [spec] = read_python_source(f"python:{folder.name}.tools")
    assert spec.name == "ping" and list(spec.input_schema["properties"]) == ["times"]
    (folder / "contracts.yaml").write_text("tools:\n- name: ping\n  produces: [pinged]\n")
    suite = load_bench_suite(f"tools:{folder}")
    data = {"pings": 0}
    done = run_tool(suite.toolset, data, "ping", {"times": "2"})
    assert done.ok and done.result == {"pings": 2} and data == {"pings": 2}


SIGNATURES = USING + '''


def tag(order_id: str, /, *line_ids: str, note: str = "") -> dict:
    """Tag lines of an order.

    Args:
        order_id: the order.
        *line_ids: the lines to tag.
        note: a note.
    """
    _DATA["db"]["tags"] = [order_id, *line_ids, note]
    return {"tagged": list(line_ids)}


def find(*, limit: int = 5, **filters: str) -> dict:
    """Find orders by any of their fields (colour, size)."""
    return {"limit": limit, "filters": filters}
'''


def test_positional_only_variadic_and_keyword_gathering_parameters_are_called_by_name(
        tmp_path, monkeypatch):
    """A positional-only ``order_id, /``, a ``*line_ids`` and a ``**filters``: drafted as
    the parameters a call names (``line_ids`` a list, ``filters`` an object) and called as
    the signature takes them; a key no parameter names goes to ``**filters`` too."""
    folder = _tool_set(tmp_path / "desk_signatures", SIGNATURES, "tasks: [{id: t1, prompt: "
                       "hi, calls: [{tool: tag, arguments: {order_id: O-1}}]}]")
    monkeypatch.syspath_prepend(str(tmp_path))
    specs = {s.name: s for s in read_python_source(f"python:{folder.name}.tools")}
    tag_schema, find_schema = specs["tag"].input_schema, specs["find"].input_schema
    assert tag_schema["properties"]["line_ids"] == {
        "type": "array", "items": {"type": "string"}, "description": "the lines to tag."}
    assert list(tag_schema["required"]) == ["order_id"]
    assert find_schema["properties"]["filters"]["type"] == "object"
    (folder / "contracts.yaml").write_text("tools:\n- name: tag\n  produces: [tagged]\n"
                                           "- name: find\n  produces: [found]\n")
    suite = load_bench_suite(f"tools:{folder}")
    data: dict = {}
    done = run_tool(suite.toolset, data, "tag", {"order_id": "O-1", "line_ids": ["L-1", "L-2"],
                                                 "note": "x"})
    assert done.ok and done.result == {"tagged": ["L-1", "L-2"]}
    assert data["tags"] == ["O-1", "L-1", "L-2", "x"]
    assert run_tool(suite.toolset, data, "find", {"filters": {"colour": "navy"}}).result == {
        "limit": 5, "filters": {"colour": "navy"}}
    assert run_tool(suite.toolset, data, "find", {"size": "M", "limit": 2}).result == {
        "limit": 2, "filters": {"size": "M"}}
    missing = run_tool(suite.toolset, data, "tag", {"line_ids": ["L-1"]})
    assert not missing.ok and "order_id" in (missing.error or "")
