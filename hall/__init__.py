"""A hall of tables: every table publishes what it journals to the hall's MQTT broker
(Mosquitto), and the head referee's server shows them all.

* :mod:`hall.link` — at each table: the journal as the outbox, QoS 1, store and forward.
* :mod:`hall.board`, :mod:`hall.subscriber` — at the hall: every table's last word.
* :mod:`hall.attention` — what waits for a referee, and which table to look at first.
* :mod:`hall.broker` — Mosquitto's users, ACL and settings for a hall.
* ``riichi-referee hall --config hall.toml`` (:mod:`app.commands.hall`) serves the head referee's
page
  (:mod:`web.hall`). See ``hall/README.md``.
"""
