"""The command line: `jailcore run|replay|demo|tail|status|ctban|pardon|web|check-config`.
The top floor: may import every other layer."""
