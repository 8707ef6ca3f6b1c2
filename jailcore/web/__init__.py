"""The admin web page (`jailcore web`): the live enforcement log, a round's story, players,
servers, charts and pardons, read from the servers' state databases. Needs the `web` extra.
Imports `log`, `engine`, `config`, `io`; never `cli`."""
