; planfilter domain: one 0-ary predicate per state variable, one 0-ary action per tool.
(define (domain planfilter)
  (:requirements :strips)
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

  ; tool search_events
  (:action search_events
    :parameters ()
    :precondition (and (date) (event_description))
    :effect (and (event_id)))

  ; tool read_event
  (:action read_event
    :parameters ()
    :precondition (and (event_id))
    :effect (and (event_details)))

  ; tool update_event
  (:action update_event
    :parameters ()
    :precondition (and (event_id) (new_time))
    :effect (and (event_updated)))

  ; tool create_event
  (:action create_event
    :parameters ()
    :precondition (and (date) (event_description) (new_time))
    :effect (and (event_created)))

  ; tool delete_event
  (:action delete_event
    :parameters ()
    :precondition (and (event_id))
    :effect (and (event_deleted)))

  ; tool check_availability
  (:action check_availability
    :parameters ()
    :precondition (and (date) (new_time))
    :effect (and (availability)))
)
