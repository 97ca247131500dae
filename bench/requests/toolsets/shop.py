"""The orders, products and refunds API of Brewhaus, an online shop for coffee gear, as its
support staff's assistant uses it, over fixed in-memory data.

Today is 2026-03-10; prices are in US dollars; orders under $100 pay $4.95 shipping. The module
is self-contained (`toolwire run "..." --tools bench/requests/toolsets/shop.py` works);
`reset()` restores the fixed data.
"""

from __future__ import annotations

import copy
import datetime
from typing import Any, Literal

from toolwire import ToolError, tool

TODAY = "2026-03-10"
INSTRUCTIONS = (
    "You are the support assistant of Brewhaus, an online shop for coffee gear. Today is "
    "2026-03-10. Prices are in US dollars."
)

Category = Literal["brewers", "grinders", "kettles", "accessories", "beans"]
Status = Literal["pending", "paid", "shipped", "delivered", "cancelled", "refunded"]
RefundReason = Literal["damaged", "wrong_item", "not_received", "changed_mind", "other"]

_PRODUCTS = {
    "BH-AERO": ("AeroPress Go", "brewers", 39.95, 14),
    "BH-V60": ("Hario V60 ceramic dripper", "brewers", 24.00, 31),
    "BH-CHEMEX": ("Chemex 6-cup", "brewers", 49.50, 0),
    "BH-FP1": ("Bodum Chambord French press 1 l", "brewers", 44.90, 8),
    "BH-FP2": ("Espro P3 French press", "brewers", 36.00, 5),
    "BH-GR1": ("Baratza Encore grinder", "grinders", 149.00, 6),
    "BH-GR2": ("Timemore C2 hand grinder", "grinders", 69.00, 0),
    "BH-GR3": ("Comandante C40 hand grinder", "grinders", 289.00, 2),
    "BH-KET1": ("Fellow Stagg EKG kettle", "kettles", 165.00, 3),
    "BH-KET2": ("Hario Buono kettle", "kettles", 52.00, 11),
    "BH-SCALE": ("Acaia Pearl scale", "accessories", 155.00, 4),
    "BH-MUG": ("Brewhaus enamel mug", "accessories", 14.50, 60),
    "BH-FILTER": ("V60 paper filters, 100 pack", "accessories", 6.90, 120),
    "BH-ETH": ("Ethiopia Yirgacheffe beans 250 g", "beans", 16.80, 40),
    "BH-COL": ("Colombia Huila beans 1 kg", "beans", 48.00, 9),
}

_CUSTOMERS = {
    "jane": ("Jane Doe", "jane.doe@example.com", "18 Elm Street, Portland, OR 97205"),
    "kai": ("Kai Müller", "kai.mueller@example.de", "Lindenstraße 5, 10969 Berlin"),
    "maria": ("Maria Gonzalez", "maria.g@example.com", "400 Pine Ave, Austin, TX 78701"),
    "omar": ("Omar Haddad", "omar.haddad@example.com", "9 King Street, Toronto, ON M5H 1A1"),
    "lucy": ("Lucy Chen", "lucy.chen@example.com", "77 Harbor Road, Seattle, WA 98101"),
}

# id: (customer, placed, status, [(sku, quantity)], tracking, event date (delivered/refunded/...))
_ORDERS = {
    "ORD-10455": ("lucy", "2026-02-10", "cancelled", [("BH-SCALE", 1)], None, "2026-02-10"),
    "ORD-10466": ("omar", "2026-02-14", "delivered", [("BH-COL", 2)], "UPS 1Z58R0720391", "2026-02-18"),
    "ORD-10475": ("maria", "2026-02-20", "refunded", [("BH-GR2", 1)], "UPS 1Z58R0720412", "2026-02-28"),
    "ORD-10482": ("jane", "2026-02-27", "delivered", [("BH-GR1", 1), ("BH-FILTER", 2)], "UPS 1Z58R0720447", "2026-03-03"),
    "ORD-10490": ("jane", "2026-03-02", "delivered", [("BH-MUG", 2), ("BH-ETH", 1)], "UPS 1Z58R0720468", "2026-03-06"),
    "ORD-10501": ("kai", "2026-03-05", "shipped", [("BH-KET1", 1)], "DHL 00340434161234567890", None),
    "ORD-10509": ("lucy", "2026-03-07", "shipped", [("BH-FP1", 1), ("BH-V60", 1)], "UPS 1Z58R0720503", None),
    "ORD-10517": ("kai", "2026-03-09", "paid", [("BH-GR3", 1)], None, None),
    "ORD-10522": ("maria", "2026-03-09", "pending", [("BH-AERO", 1), ("BH-MUG", 1)], None, None),
    "ORD-10530": ("omar", "2026-03-10", "paid", [("BH-SCALE", 1), ("BH-KET2", 1)], None, None),
}  # fmt: skip

SHIPPING = 4.95
FREE_SHIPPING_FROM = 100.0

_state: dict[str, Any] = {}


def reset() -> None:
    """Back to the fixed data: every run of an item starts from the same orders."""
    orders = {}
    for order_id, (who, placed, status, lines, tracking, when) in copy.deepcopy(_ORDERS).items():
        name, email, address = _CUSTOMERS[who]
        items = [
            {"sku": sku, "name": _PRODUCTS[sku][0], "quantity": n, "unit_price": _PRODUCTS[sku][2]}
            for sku, n in lines
        ]
        subtotal = round(sum(i["unit_price"] * i["quantity"] for i in items), 2)
        shipping = 0.0 if subtotal >= FREE_SHIPPING_FROM else SHIPPING
        orders[order_id] = {
            "order_id": order_id,
            "customer": name,
            "email": email,
            "placed": placed,
            "status": status,
            "items": items,
            "subtotal": subtotal,
            "shipping": shipping,
            "total": round(subtotal + shipping, 2),
            "refunded": round(subtotal + shipping, 2) if status == "refunded" else 0.0,
            "shipping_address": address,
            "tracking": tracking,
            "delivered": when if status == "delivered" else None,
        }
    _state["orders"] = orders
    _state["next_refund"] = 7001


reset()


def _order(order_id: str) -> dict[str, Any]:
    order: dict[str, Any] | None = _state["orders"].get(order_id.strip().upper())
    if order is None:
        raise ToolError(f"no order {order_id!r}: order ids look like ORD-10482")
    return order


@tool(side_effect="read_only")
def search_orders(
    customer: str | None = None,
    status: Status | None = None,
    placed_after: str | None = None,
    limit: int = 20,
) -> list[dict[str, Any]]:
    """Find orders, newest first. Returns each order's id, customer, date, status and total;
    get_order gives the details.

    Args:
        customer: the customer's name or email address (or part of it)
        status: only orders with this status
        placed_after: only orders placed on or after this day, as YYYY-MM-DD
        limit: at most this many orders
    """
    since = None
    if placed_after:
        try:
            since = datetime.date.fromisoformat(placed_after.strip()).isoformat()
        except ValueError:
            raise ToolError(f"placed_after must be YYYY-MM-DD, not {placed_after!r}") from None
    words = (customer or "").lower().split()
    found = [
        {k: o[k] for k in ("order_id", "customer", "email", "placed", "status", "total")}
        for o in _state["orders"].values()
        if all(w in f"{o['customer']} {o['email']}".lower() for w in words)
        and (status is None or o["status"] == status)
        and (since is None or o["placed"] >= since)
    ]
    return sorted(found, key=lambda o: o["placed"], reverse=True)[: max(limit, 0)]


@tool(side_effect="read_only")
def get_order(order_id: str) -> dict[str, Any]:
    """Everything about one order: items, prices, status, shipping address, tracking, refunds.

    Args:
        order_id: the order's id, e.g. "ORD-10482"
    """
    return _order(order_id)


@tool(side_effect="read_only")
def search_products(
    query: str = "",
    category: Category | None = None,
    max_price: float | None = None,
    in_stock_only: bool = False,
) -> list[dict[str, Any]]:
    """Search the catalogue, best matches first. Returns each product's SKU, name, category,
    price and units in stock.

    Args:
        query: words to find in the product name; empty lists everything
        category: only this category
        max_price: only products costing at most this many dollars
        in_stock_only: leave out products with no units in stock
    """
    # Like a shop's search box: "grinders" finds "grinder", and any word counts, most first.
    words = [w.removesuffix("s") if len(w) > 3 else w for w in query.lower().split()]
    hits = {sku: sum(w in p[0].lower() for w in words) for sku, p in _PRODUCTS.items()}
    found = [
        {"sku": sku, "name": name, "category": kind, "price": price, "in_stock": stock}
        for sku, (name, kind, price, stock) in _PRODUCTS.items()
        if (hits[sku] or not words)
        and (category is None or kind == category)
        and (max_price is None or price <= max_price)
        and (stock > 0 or not in_stock_only)
    ]
    return sorted(found, key=lambda product: -hits[product["sku"]])


@tool(side_effect="destructive")
def refund_order(
    order_id: str, amount: float | None = None, reason: RefundReason = "other"
) -> dict[str, Any]:
    """Refund a shipped or delivered order to the customer's card, in full or in part.

    Args:
        order_id: the order's id, e.g. "ORD-10482"
        amount: dollars to refund; leave out for a full refund of what is left
        reason: why the customer gets the money back
    """
    order = _order(order_id)
    if order["status"] in ("pending", "paid"):
        raise ToolError(f"{order['order_id']} has not shipped yet: cancel it instead")
    if order["status"] in ("cancelled", "refunded"):
        raise ToolError(f"{order['order_id']} is {order['status']}: nothing to refund")
    left = round(order["total"] - order["refunded"], 2)
    value = left if amount is None else round(amount, 2)
    if not 0 < value <= left:
        raise ToolError(f"the refund must be more than 0 and at most {left:.2f}")
    order["refunded"] = round(order["refunded"] + value, 2)
    if order["refunded"] >= order["total"]:
        order["status"] = "refunded"
    refund_id = f"RF-{_state['next_refund']}"
    _state["next_refund"] += 1
    return {
        "refund_id": refund_id,
        "order_id": order["order_id"],
        "amount": value,
        "reason": reason,
        "order_status": order["status"],
        "arrives": "3-5 business days",
    }


@tool(side_effect="destructive")
def cancel_order(order_id: str) -> dict[str, Any]:
    """Cancel an order that has not shipped yet; a paid order is refunded in full.

    Args:
        order_id: the order's id, e.g. "ORD-10517"
    """
    order = _order(order_id)
    if order["status"] not in ("pending", "paid"):
        raise ToolError(
            f"{order['order_id']} is {order['status']}: only unshipped orders can be cancelled"
        )
    refunded = order["total"] if order["status"] == "paid" else 0.0
    order["status"] = "cancelled"
    return {"order_id": order["order_id"], "status": "cancelled", "refunded": refunded}


@tool(side_effect="idempotent")
def update_shipping_address(order_id: str, address: str) -> dict[str, Any]:
    """Change where an order that has not shipped yet will be delivered.

    Args:
        order_id: the order's id, e.g. "ORD-10522"
        address: the full new address on one line
    """
    order = _order(order_id)
    if order["status"] not in ("pending", "paid"):
        raise ToolError(
            f"{order['order_id']} is {order['status']}: the address can no longer change"
        )
    if len(address.strip()) < 8:
        raise ToolError("give the full address: street, city and postal code")
    order["shipping_address"] = address.strip()
    return {"order_id": order["order_id"], "shipping_address": order["shipping_address"]}


TOOLS = [
    search_orders,
    get_order,
    search_products,
    refund_order,
    cancel_order,
    update_shipping_address,
]
