"""The store: every line of SQL jailcore runs, behind one typed interface used by the daemon,
the command line and the web page alike. Nothing outside this folder imports `sqlite3` or a
database driver. Imports `log`, `engine`, `config` and `session`; never `io`, `sim`, `web` or
`cli`."""
