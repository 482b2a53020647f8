"""How an implementation under test plugs in: the adapter protocol (--impl MODULE[:ATTR])."""
