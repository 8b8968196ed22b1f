"""Reference fix. target: fetching.py::fetch_total"""

async def fetch_total(values):
    """Sum of all values, fetched asynchronously."""
    await asyncio.sleep(0)
    return sum(values[0:])
