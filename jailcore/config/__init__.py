"""TOML to `Config`: the schema read from the rules' own settings declarations, the three
rulebooks' clauses and ladders, the game catalogue, network settings. Imports `log` and `engine`."""
