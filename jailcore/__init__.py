"""jailcore: live rule enforcement for jail servers.

The layers, lowest first; each imports only the ones below it (tests/test_layers.py checks):
log -> engine -> config -> io -> sim, web -> cli.
"""
