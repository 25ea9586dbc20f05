/**
 * The tracking port: what a guest buyer's tracking link shows of an order, read in one call
 * (`order_tracking` in SQL). No e-mail, phone, address or payment proof: whoever holds a link sees only
 * what the order is and where it stands.
 */

/** One status the order took, and when. Notes and who moved it are the seller's, not shown. */
export interface TrackedStatus {
  status: string;
  at: string;
}

/** One item as sold. Amounts in the store's currency, as the create-order response gives them. */
export interface TrackedItem {
  productName: string;
  variantName: string | null;
  quantity: number;
  unitPrice: number;
  lineTotal: number;
}

/** The parcel, as the seller gave it with the move to `shipped`; each part may be missing. */
export interface TrackedShipment {
  carrier: string | null;
  trackingNumber: string | null;
  trackingUrl: string | null;
}

/** What the tracking page shows of an order. */
export interface TrackedOrder {
  orderId: string;
  orderNumber: string;
  status: string;
  createdAt: string;
  storeName: string;
  /** The store's IANA time zone (`stores.time_zone`): the page shows every date in it. */
  timeZone: string;
  currency: string;
  paymentMethod: "upi_direct" | "gateway";
  /** The gateway method the order was priced with (it names the fee); null for `upi_direct`. */
  gatewayMethod: "card" | "upi" | "wallet" | null;
  items: TrackedItem[];
  totalAmount: number;
  checkoutFee: number;
  finalAmount: number;
  /** Every status the order took, oldest first. */
  history: TrackedStatus[];
  /** Null until the order has shipped. */
  shipment: TrackedShipment | null;
}

/** Reads an order for its tracking page; null when there is none. Throws INTERNAL_ERROR on an outage. */
export interface OrderTracking {
  trackOrder(orderId: string): Promise<TrackedOrder | null>;
}
