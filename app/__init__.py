"""The application: the ``riichi-referee`` command and what it wires together.

The only floor that imports the others: the rules core (:mod:`referee`), the table service
(:mod:`table`), and the devices and views (:mod:`hardware`, :mod:`vision`, :mod:`web`,
:mod:`hall`), which never import each other. Each command is a module of
:mod:`app.commands`; :mod:`app.demo` and :mod:`app.hall_demo` are the simulated table and hall."""
