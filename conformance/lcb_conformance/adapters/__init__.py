"""How an implementation under test plugs in: the adapter protocol (--impl MODULE[:ATTR]), a
program over JSON lines (--impl-cmd, and the generic server for any adapter), a harness's
installed code loaded without its package, and untrusted programs contained."""
