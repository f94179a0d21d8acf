"""The scoring app's URL modules, one per audience: ``referee`` (the referee desk and a table's
score sheet), ``penalties`` (判罚) and ``tableside`` (the secret link on the score sheet)."""
