"""VAT cases."""
