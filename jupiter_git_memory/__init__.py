"""jupiter-git-memory: Git-native knowledge records, embedded and recalled under a memory contract.

The package reads as the data flow: records → lifecycle → chunking → embedding → index → seed →
recall → surfaces → candidates.
"""

__version__ = "0.1.0"
PROVIDER = "jupiter-git-memory"
