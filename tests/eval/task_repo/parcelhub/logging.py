"""Log setup."""
