"""Read the sales export (columns: region, amount)."""

import csv
import io


def load(text: str) -> list[dict]:
    """Rows of the CSV ``text`` with ``amount`` as a float."""
    reader = csv.DictReader(io.StringIO(text))
    return [{"region": row["region"], "amount": float(row["amount"])} for row in reader]
