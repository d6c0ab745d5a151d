(let ((a!1 (or (not (= ((_ extract 3 3) |x:msgs|) #b1))
               (= ((_ extract 1 1) |x:rmState[rm3]|) #b1)
               (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)))
      (a!2 (or (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
               (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
               (= ((_ extract 1 1) |x:rmState[rm2]|) #b1)
               (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))))
      (a!3 (or (not (= ((_ extract 0 0) |x:rmState[rm1]|) #b1))
               (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))
               (not (= ((_ extract 4 4) |x:msgs|) #b1))))
      (a!4 (or (not (= ((_ extract 0 0) |x:rmState[rm3]|) #b1))
               (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))
               (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
               (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)))
      (a!5 (or (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
               (not (= ((_ extract 4 4) |x:msgs|) #b1))
               (= ((_ extract 1 1) |x:rmState[rm1]|) #b1)))
      (a!6 (or (not (= ((_ extract 4 4) |x:msgs|) #b1))
               (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
               (= ((_ extract 1 1) |x:rmState[rm2]|) #b1)))
      (a!7 (= ((_ extract 1 1) |x:rmState[rm3]|)
              (ite (= ((_ extract 4 4) |x:msgs|)
                      ((_ extract 1 1) |x:rmState[rm3]|))
                   #b1
                   #b0)))
      (a!8 (or (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
               (= ((_ extract 1 1) |x:rmState[rm3]|) #b1)
               (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)
               (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))))
      (a!9 (or (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
               (= ((_ extract 1 1) |x:rmState[rm2]|) #b1)
               (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
               (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)))
      (a!10 (or (not (= ((_ extract 0 0) |x:rmState[rm3]|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))))
      (a!11 (or (not (= ((_ extract 0 0) |x:rmState[rm1]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))))
      (a!12 (or (not (= ((_ extract 0 0) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (= ((_ extract 1 1) |x:tmState|) #b1)
                (not (= ((_ extract 1 1) |x:tmPrepared|) #b1))))
      (a!13 (or (not (= ((_ extract 0 0) |x:tmPrepared|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
                (= ((_ extract 1 1) |x:rmState[rm1]|) #b1)))
      (a!14 (or (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
                (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (= ((_ extract 1 1) |x:rmState[rm1]|) #b1)))
      (a!15 (or (not (= ((_ extract 0 0) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 4 4) |x:msgs|) #b1))))
      (a!16 (or (= ((_ extract 0 0) |x:tmState|) #b1)
                (not (= ((_ extract 0 0) |x:tmPrepared|) #b1))
                (= ((_ extract 1 1) |x:tmState|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))))
      (a!17 (or (= ((_ extract 0 0) |x:tmState|) #b1)
                (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))))
      (a!18 (or (not (= ((_ extract 2 2) |x:tmPrepared|) #b1))
                (= ((_ extract 0 0) |x:tmState|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
                (= ((_ extract 1 1) |x:tmState|) #b1)))
      (a!19 (or (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
                (not (= ((_ extract 0 0) |x:rmState[rm1]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))))
      (a!20 (or (= |x:tmState| #b010) (not (= ((_ extract 8 8) |x:msgs|) #b1))))
      (a!21 (or (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
                (= ((_ extract 0 0) |x:tmState|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))))
      (a!22 (or (not (= ((_ extract 0 0) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)))
      (a!23 (or (not (= ((_ extract 0 0) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)))
      (a!24 (or (not (= ((_ extract 4 4) |x:msgs|) #b1))
                (not (= ((_ extract 8 8) |x:msgs|) #b1))))
      (a!25 (or (not (= ((_ extract 2 2) |x:msgs|) #b1))
                (not (= ((_ extract 0 0) |x:rmState[rm2]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (= ((_ extract 1 1) |x:tmState|) #b1)))
      (a!26 (or (= ((_ extract 1 1) |x:rmState[rm3]|) #b1)
                (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)))
      (a!27 (or (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)
                (= ((_ extract 0 0) |x:tmState|) #b1)))
      (a!28 (or (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)
                (= ((_ extract 1 1) |x:rmState[rm1]|) #b1)))
      (a!29 (or (not (= ((_ extract 1 1) |x:tmPrepared|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
                (= ((_ extract 1 1) |x:rmState[rm2]|) #b1)))
      (a!30 (or (= ((_ extract 0 0) |x:tmState|) #b1)
                (= ((_ extract 1 1) |x:tmState|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm1]|) #b1))
                (not (= ((_ extract 1 1) |x:msgs|) #b1))))
      (a!31 (or (not (= ((_ extract 2 2) |x:tmPrepared|) #b1))
                (= ((_ extract 1 1) |x:rmState[rm3]|) #b1)
                (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)))
      (a!32 (or (not (= ((_ extract 4 4) |x:msgs|) #b1))
                (= ((_ extract 1 1) |x:rmState[rm3]|) #b1)
                (= ((_ extract 0 0) |x:rmState[rm3]|) #b1)))
      (a!33 (or (not (= ((_ extract 3 3) |x:msgs|) #b1))
                (= ((_ extract 0 0) |x:tmState|) #b1)
                (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
                (= ((_ extract 1 1) |x:tmState|) #b1)))
      (a!34 (or (not (= ((_ extract 0 0) |x:rmState[rm3]|) #b1))
                (not (= ((_ extract 1 1) |x:rmState[rm3]|) #b1))
                (not (= ((_ extract 4 4) |x:msgs|) #b1))))
      (a!35 (or (not (= ((_ extract 1 1) |x:msgs|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm1]|) #b1)
                (= ((_ extract 1 1) |x:rmState[rm1]|) #b1)))
      (a!36 (or (not (= ((_ extract 2 2) |x:msgs|) #b1))
                (= ((_ extract 0 0) |x:rmState[rm2]|) #b1)
                (= ((_ extract 1 1) |x:rmState[rm2]|) #b1))))
  (and a!1
       a!2
       a!3
       a!4
       a!5
       a!6
       (or (not a!7) (= ((_ extract 0 0) |x:tmState|) #b1))
       a!8
       a!9
       a!10
       a!11
       a!12
       a!13
       a!14
       a!15
       a!16
       a!17
       a!18
       a!19
       a!20
       a!21
       a!22
       a!23
       a!24
       a!25
       a!26
       a!27
       a!28
       a!29
       a!30
       a!31
       a!32
       a!33
       a!34
       a!35
       a!36))