"""A small customer-service shop: typed Python tools over a JSON database of customers,
orders and products (``tools.py``, ``database.json``), and tasks checked by the database
state at the end (``tasks.yaml``). Run with ``--suite shop``."""
