"""Request limits shared by every surface (HTTP API, MCP), so no surface is the unbounded way in.

Why one module: the MCP tools once took any number of error signatures and any offset (an offset past
SQLite's 64-bit range raised OverflowError), while the API refused them. Both now declare these bounds in
their schemas, and the shared operations check them again.
"""

MAX_TEXT = 4000  # a query, goal, error signature or file path
MAX_ERRORS = 20  # error signatures per task
MAX_FILES = 50  # files per task
MAX_RECALL_K = 100  # results of a plain recall
MAX_K = 50  # results of task recall, global results, context records
MAX_PAGE = 200  # records per listing page
MAX_OFFSET = 10_000_000  # listing offset
MIN_BUDGET, MAX_BUDGET = 32, 100_000  # context pack tokens
MAX_GOVERNS = 500  # records `jgm governs` lists
