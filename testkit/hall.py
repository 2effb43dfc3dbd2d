"""How the tests' hall clients retry a broker: a test that stops and starts its broker has it
back in a fraction of a second, and a hall's subscriber and links waited the 1 to 4 s between
tries that spare a real broker (and every table of a hall retrying at once) each time. The
retrying itself (the backoff, the reconnect, what is resent) is the same code as a table's."""

#: ``HallSubscriber(reconnect_delay=...)``: paho's first and longest pause, in seconds
SUBSCRIBER_RETRY = (0.05, 0.2)

#: ``HallLink(retry=...)``: the link's first and longest pause, in seconds
LINK_RETRY = (0.05, 0.2)
