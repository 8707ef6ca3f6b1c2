"""The test and demo double: a simulated srcds (RCON, log stream, faults), the SourceMod plugin
host and its SourcePawn VM, the Python stand-in for the plugin, the log writer. Nothing in
`io` imports it; it may import everything below `web` and `cli`."""
