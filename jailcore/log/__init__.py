"""Bytes to events: the log grammar (engine lines and the shim's `triggered` lines), log time,
and the typed events. Imports nothing of jailcore outside this folder."""
