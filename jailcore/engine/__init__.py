"""Events to actions: the sans-IO engine, its state, punishment ladders, the action vocabulary,
and one module per rule family in `rules/`. Imports `log` only; holds no socket and no clock."""
