"""The shop's tools: plain typed functions over the database of the run in progress.

Each tool reads or changes :func:`database` (the run's own copy, set with :func:`using`), so
``planfilter contracts infer python:planfilter.suites.shop.tools`` reads them as any Python
tools: parameters from the signature, descriptions from the docstring, results from the
return annotation. A bad call raises :class:`ShopError`, whose message the model is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Literal

from pydantic import BaseModel


class ShopError(Exception):
    """A call the shop refuses (unknown id, wrong order status, ...)."""


class Address(BaseModel):
    address1: str
    address2: str
    city: str
    state: str
    country: str
    zip: str


class PaymentMethod(BaseModel):
    payment_method_id: str
    kind: Literal["credit_card", "paypal", "gift_card"]
    #: The card's last four digits, or the PayPal account's email, or the gift card's balance.
    detail: str


class User(BaseModel):
    user_id: str
    first_name: str
    last_name: str
    email: str
    address: Address
    payment_methods: list[PaymentMethod]
    order_ids: list[str]


class OrderItem(BaseModel):
    item_id: str
    product_id: str
    name: str
    options: dict[str, str]
    price: float


class Order(BaseModel):
    order_id: str
    user_id: str
    status: str
    address: Address
    items: list[OrderItem]
    payment_method_id: str
    #: What a return or an exchange asked for: item ids, new item ids, payment method.
    requested: dict[str, Any] = {}


class Variant(BaseModel):
    item_id: str
    options: dict[str, str]
    available: bool
    price: float


class Product(BaseModel):
    product_id: str
    name: str
    variants: list[Variant]


_DATABASE: ContextVar[dict[str, Any]] = ContextVar("shop_database")


@contextmanager
def using(data: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Run the tools on ``data`` (changed in place) inside the block."""
    token = _DATABASE.set(data)
    try:
        yield data
    finally:
        _DATABASE.reset(token)


def database() -> dict[str, Any]:
    try:
        return _DATABASE.get()
    except LookupError:
        raise ShopError("no shop database is open (run the tools inside using(data))") from None


def _user(user_id: str) -> dict[str, Any]:
    users = database()["users"]
    if user_id not in users:
        raise ShopError(f"user {user_id!r} not found")
    return dict(users[user_id])


def _order(order_id: str) -> dict[str, Any]:
    orders = database()["orders"]
    if order_id not in orders:
        raise ShopError(f"order {order_id!r} not found")
    return dict(orders[order_id])


def _payment(user_id: str, payment_method_id: str) -> None:
    if payment_method_id not in {p["payment_method_id"]
                                 for p in database()["users"][user_id]["payment_methods"]}:
        raise ShopError(f"payment method {payment_method_id!r} is not one of user "
                        f"{user_id!r}'s")


def _items_of(order: dict[str, Any], item_ids: list[str]) -> None:
    held = [i["item_id"] for i in order["items"]]
    for item_id in item_ids:
        if item_id not in held:
            raise ShopError(f"item {item_id!r} is not in order {order['order_id']!r}")
    if not item_ids:
        raise ShopError("no item ids given")


def find_user_id_by_name_zip(first_name: str, last_name: str, zip: str) -> str:
    """Authenticate a customer: find their user id by first name, last name and zip code.

    Args:
        first_name: The customer's first name.
        last_name: The customer's last name.
        zip: The zip code of the customer's address.

    Returns:
        The user id.
    """
    for user in database()["users"].values():
        if (user["first_name"].lower(), user["last_name"].lower(), user["address"]["zip"]) == \
                (first_name.lower(), last_name.lower(), zip):
            return str(user["user_id"])
    raise ShopError(f"no user named {first_name} {last_name} at zip {zip}")


def find_user_id_by_email(email: str) -> str:
    """Authenticate a customer: find their user id by their email address.

    Args:
        email: The customer's email address.

    Returns:
        The user id.
    """
    for user in database()["users"].values():
        if user["email"].lower() == email.lower():
            return str(user["user_id"])
    raise ShopError(f"no user with email {email}")


def get_user_details(user_id: str) -> User:
    """Get a customer's details: name, email, address, payment methods and order ids.

    Requires authentication.

    Args:
        user_id: The customer's user id.
    """
    return User.model_validate(_user(user_id))


def get_order_details(order_id: str) -> Order:
    """Get an order's details: status, address, items and payment method. Requires authentication.

    Args:
        order_id: The order id, such as '#W0000001'.
    """
    return Order.model_validate(_order(order_id))


def get_product_details(product_id: str) -> Product:
    """Get a product's details and its variants, each with its own item id. Requires authentication.

    Args:
        product_id: The product id.
    """
    products = database()["products"]
    if product_id not in products:
        raise ShopError(f"product {product_id!r} not found")
    return Product.model_validate(products[product_id])


def exchange_delivered_order_items(order_id: str, item_ids: list[str], new_item_ids: list[str],
                                   payment_method_id: str) -> Order:
    """Exchange items of a delivered order for other variants of the same products.

    Requires authentication.

    Args:
        order_id: The order id, such as '#W0000001'.
        item_ids: The ids of the order's items to exchange, as the order lists them.
        new_item_ids: The item ids to exchange them for, one per item id: each a variant of the
            same product, as the product's details list them.
        payment_method_id: The payment method to pay or refund the price difference with, one
            of the user's payment methods.
    """
    order = _order(order_id)
    if order["status"] != "delivered":
        raise ShopError(f"order {order_id!r} is {order['status']}, not delivered")
    _items_of(order, item_ids)
    if len(new_item_ids) != len(item_ids):
        raise ShopError("give one new item id per item id")
    products = database()["products"]
    by_id = {i["item_id"]: i for i in order["items"]}
    for old, new in zip(item_ids, new_item_ids, strict=True):
        variants = {v["item_id"]: v for v in products[by_id[old]["product_id"]]["variants"]}
        if new not in variants:
            raise ShopError(f"item {new!r} is not a variant of product "
                            f"{by_id[old]['product_id']!r}")
        if not variants[new]["available"]:
            raise ShopError(f"item {new!r} is not available")
    _payment(order["user_id"], payment_method_id)
    order["status"] = "exchange requested"
    order["requested"] = {"item_ids": list(item_ids), "new_item_ids": list(new_item_ids),
                          "payment_method_id": payment_method_id}
    database()["orders"][order_id] = order
    return Order.model_validate(order)


def return_delivered_order_items(order_id: str, item_ids: list[str],
                                 payment_method_id: str) -> Order:
    """Return items of a delivered order for a refund. Requires authentication.

    Args:
        order_id: The order id, such as '#W0000001'.
        item_ids: The ids of the order's items to return, as the order lists them.
        payment_method_id: The payment method to refund to, one of the user's payment methods.
    """
    order = _order(order_id)
    if order["status"] != "delivered":
        raise ShopError(f"order {order_id!r} is {order['status']}, not delivered")
    _items_of(order, item_ids)
    _payment(order["user_id"], payment_method_id)
    order["status"] = "return requested"
    order["requested"] = {"item_ids": list(item_ids), "payment_method_id": payment_method_id}
    database()["orders"][order_id] = order
    return Order.model_validate(order)


def cancel_pending_order(order_id: str,
                         reason: Literal["no longer needed", "ordered by mistake"]) -> Order:
    """Cancel a pending order. Requires authentication.

    Args:
        order_id: The order id, such as '#W0000001'.
        reason: Why the customer cancels: 'no longer needed' or 'ordered by mistake'.
    """
    order = _order(order_id)
    if order["status"] != "pending":
        raise ShopError(f"order {order_id!r} is {order['status']}, not pending")
    order["status"] = "cancelled"
    order["requested"] = {"reason": reason}
    database()["orders"][order_id] = order
    return Order.model_validate(order)


def _address(address1: str, address2: str, city: str, state: str, country: str,
             zip: str) -> dict[str, str]:
    return {"address1": address1, "address2": address2, "city": city, "state": state,
            "country": country, "zip": zip}


def modify_pending_order_address(order_id: str, address1: str, city: str, state: str,
                                 country: str, zip: str, address2: str = "") -> Order:
    """Change the shipping address of a pending order: ship it to another address. Requires
    authentication.

    Args:
        order_id: The order id, such as '#W0000001'.
        address1: The first line of the new address.
        address2: The second line of the new address (may be empty).
        city: The new address's city.
        state: The new address's state.
        country: The new address's country.
        zip: The new address's zip code.
    """
    order = _order(order_id)
    if order["status"] != "pending":
        raise ShopError(f"order {order_id!r} is {order['status']}, not pending")
    order["address"] = _address(address1, address2, city, state, country, zip)
    database()["orders"][order_id] = order
    return Order.model_validate(order)


def modify_pending_order_payment(order_id: str, payment_method_id: str) -> Order:
    """Change the payment method of a pending order: charge another of the customer's payment
    methods (a credit card, PayPal, a gift card) instead. Requires authentication.

    Args:
        order_id: The order id, such as '#W0000001'.
        payment_method_id: The new payment method, one of the user's payment methods.
    """
    order = _order(order_id)
    if order["status"] != "pending":
        raise ShopError(f"order {order_id!r} is {order['status']}, not pending")
    _payment(order["user_id"], payment_method_id)
    if payment_method_id == order["payment_method_id"]:
        raise ShopError(f"order {order_id!r} is already paid with {payment_method_id!r}")
    order["payment_method_id"] = payment_method_id
    database()["orders"][order_id] = order
    return Order.model_validate(order)


def modify_user_address(user_id: str, address1: str, city: str, state: str, country: str,
                        zip: str, address2: str = "") -> User:
    """Change a customer's default address. Requires authentication.

    Args:
        user_id: The customer's user id.
        address1: The first line of the new address.
        address2: The second line of the new address (may be empty).
        city: The new address's city.
        state: The new address's state.
        country: The new address's country.
        zip: The new address's zip code.
    """
    user = _user(user_id)
    user["address"] = _address(address1, address2, city, state, country, zip)
    database()["users"][user_id] = user
    return User.model_validate(user)


#: The shop's tools, in the order a model is shown them.
TOOLS: list[Callable[..., Any]] = [
    find_user_id_by_name_zip, find_user_id_by_email, get_user_details, get_order_details,
         get_product_details, exchange_delivered_order_items, return_delivered_order_items,
         cancel_pending_order, modify_pending_order_address, modify_pending_order_payment,
         modify_user_address]
