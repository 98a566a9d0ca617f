; planfilter domain: one 0-ary predicate per state variable, one 0-ary action per tool.
(define (domain planfilter)
  (:requirements :strips :action-costs)
  (:predicates
    (availability)
    (date)
    (event_created)
    (event_deleted)
    (event_description)
    (event_details)
    (event_id)
    (event_updated)
    (new_time)
  )
  (:functions (total-cost) - number)

  ; tool search_events
  (:action search_events
    :parameters ()
    :precondition (and (date) (event_description))
    :effect (and (event_id) (increase (total-cost) 2)))

  ; tool read_event
  (:action read_event
    :parameters ()
    :precondition (and (event_id))
    :effect (and (event_details) (increase (total-cost) 2)))

  ; tool update_event
  (:action update_event
    :parameters ()
    :precondition (and (event_id) (new_time))
    :effect (and (event_updated) (increase (total-cost) 3)))

  ; tool create_event
  (:action create_event
    :parameters ()
    :precondition (and (date) (event_description) (new_time))
    :effect (and (event_created) (increase (total-cost) 3)))

  ; tool delete_event
  (:action delete_event
    :parameters ()
    :precondition (and (event_id))
    :effect (and (event_deleted) (increase (total-cost) 5)))

  ; tool check_availability
  (:action check_availability
    :parameters ()
    :precondition (and (date) (new_time))
    :effect (and (availability) (increase (total-cost) 2)))
)
