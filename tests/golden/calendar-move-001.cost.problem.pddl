; planfilter problem: the known variables and the goal.
(define (problem calendar-move-001)
  (:domain planfilter)
  (:init
    (date)
    (event_description)
    (new_time)
    (= (total-cost) 0)
  )
  (:goal (and (event_updated)))
  (:metric minimize (total-cost))
)
