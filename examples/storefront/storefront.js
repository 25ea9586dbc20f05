// The example checkout: the catalogue read with supabase-js under RLS (the anon key sees active products
// only), a cart, and the order placed with the typed client, each outcome shown as the README's table
// says. Plain JavaScript for the browser: no build step.
import { createClient } from "@supabase/supabase-js";
import { createOrder } from "create-order-client";
import config from "./config.js";

const supabase = createClient(config.supabaseUrl, config.anonKey, { auth: { persistSession: false } });
const storeId = new URLSearchParams(location.search).get("store") ?? config.storeId;

const state = {
  store: null,
  /** { id, name, price, variants: [{ id, name, price }] }, price the one the buyer is shown */
  products: [],
  /** { productId, variantId, name, unitPrice, quantity } */
  cart: [],
  /** One checkout attempt: the body sent and its idempotency key, kept while the body stays the same. */
  attempt: null,
};

const $ = (selector) => document.querySelector(selector);
const form = $("#checkout");

function money(amount) {
  return new Intl.NumberFormat("en-IN", { style: "currency", currency: state.store?.currency ?? "INR" })
    .format(amount);
}

function element(tag, properties = {}, ...children) {
  const node = Object.assign(document.createElement(tag), properties);
  node.append(...children);
  return node;
}

async function loadCatalogue() {
  const [stores, products] = await Promise.all([
    supabase.from("stores").select("id,name,currency").eq("id", storeId),
    supabase.from("products").select("id,name,price").eq("store_id", storeId).order("name"),
  ]);
  if (stores.error || products.error) throw new Error((stores.error ?? products.error).message);
  if (stores.data.length === 0) {
    $("#store-name").textContent = "This shop is not open";
    return;
  }
  state.store = stores.data[0];
  // the read route serves .eq() filters: one small read per product for its variants
  const variants = await Promise.all(
    products.data.map((product) =>
      supabase.from("product_variants").select("id,name,price").eq("product_id", product.id).order("name")
    ),
  );
  state.products = products.data.map((product, i) => ({
    ...product,
    variants: (variants[i].data ?? []).map((variant) => ({
      ...variant,
      price: variant.price ?? product.price,
    })),
  }));
  $("#store-name").textContent = state.store.name;
  renderCatalogue();
  renderCart();
  document.body.dataset.ready = "true";
}

function renderCatalogue() {
  $("#catalogue").replaceChildren(...state.products.map((product) => {
    const quantity = element("input", { type: "number", min: 1, max: 10000, value: 1, name: "quantity" });
    const choice = product.variants.length > 0
      ? element(
        "select",
        { name: "variant" },
        ...product.variants.map((variant) =>
          element("option", { value: variant.id }, `${variant.name} · ${money(variant.price)}`)
        ),
      )
      : null;
    const add = element("button", { type: "button", className: "add" }, "Add to cart");
    add.dataset.productId = product.id;
    add.addEventListener("click", () => addToCart(product, choice?.value ?? null, Number(quantity.value)));
    const item = element(
      "li",
      {},
      element("span", { className: "name" }, product.name),
      ...(choice ? [choice] : [element("span", { className: "price" }, money(product.price))]),
      quantity,
      add,
    );
    item.dataset.productId = product.id;
    return item;
  }));
}

function addToCart(product, variantId, quantity) {
  const variant = product.variants.find((v) => v.id === variantId) ?? null;
  const line = state.cart.find((l) => l.productId === product.id && l.variantId === variantId);
  if (line) line.quantity += quantity;
  else {
    state.cart.push({
      productId: product.id,
      variantId,
      name: variant ? `${product.name} (${variant.name})` : product.name,
      unitPrice: variant ? variant.price : product.price,
      quantity,
    });
  }
  renderCart();
}

function renderCart() {
  $("#cart tbody").replaceChildren(...state.cart.map((line, index) => {
    const remove = element("button", { type: "button" }, "Remove");
    remove.addEventListener("click", () => {
      state.cart.splice(index, 1);
      renderCart();
    });
    return element(
      "tr",
      {},
      element("td", {}, line.name),
      element("td", {}, String(line.quantity)),
      element("td", { className: "num" }, money(line.unitPrice)),
      element("td", { className: "num" }, money(line.unitPrice * line.quantity)),
      element("td", {}, remove),
    );
  }));
  const subtotal = state.cart.reduce(
    (sum, line) => sum + Math.round(line.unitPrice * 100) * line.quantity,
    0,
  );
  $("#subtotal").textContent = state.cart.length ? money(subtotal / 100) : "–";
}

function orderBody() {
  const field = (name) => form.elements[name].value;
  const [paymentMethod, gatewayMethod] = field("payment").split(":");
  return {
    storeId,
    buyerEmail: field("buyerEmail"),
    buyerName: field("buyerName"),
    buyerPhone: field("buyerPhone"),
    shippingAddress: {
      line1: field("line1"),
      line2: field("line2") || null,
      city: field("city"),
      state: field("state"),
      postalCode: field("postalCode"),
      country: field("country"),
    },
    // the prices the buyer was shown: the function refuses them if the catalogue has changed since
    items: state.cart.map((line) => ({
      productId: line.productId,
      variantId: line.variantId,
      quantity: line.quantity,
      price: line.unitPrice,
    })),
    paymentMethod,
    ...(paymentMethod === "gateway" ? { gatewayMethod } : { paymentProofUrl: field("paymentProofUrl") }),
  };
}

async function placeOrder(event) {
  event?.preventDefault();
  if (state.cart.length === 0) return show("problem", "Your cart is empty", ["Add a product first."]);
  const body = orderBody();
  const text = JSON.stringify(body);
  // the same body again (a retry after a failure) keeps its key, so it can never make a second order
  if (state.attempt?.body !== text) state.attempt = { body: text, key: crypto.randomUUID() };
  $("#place-order").disabled = true;
  $("#result").removeAttribute("data-outcome");
  $("#result").replaceChildren(element("p", { className: "muted" }, "Placing your order…"));
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  try {
    const result = await createOrder(supabase, body, { idempotencyKey: state.attempt.key });
    showOutcome(result);
  } finally {
    $("#place-order").disabled = false;
  }
}

const FIELD_LABELS = {
  buyerName: "Name",
  buyerEmail: "E-mail",
  buyerPhone: "Phone",
  "shippingAddress.line1": "Address",
  "shippingAddress.line2": "Address line 2",
  "shippingAddress.city": "City",
  "shippingAddress.state": "State",
  "shippingAddress.postalCode": "PIN code",
  "shippingAddress.country": "Country",
  paymentProofUrl: "Payment proof link",
};

function showOutcome(result) {
  const reference = result.requestId ? `Reference: ${result.requestId}` : null;
  const lineName = (index) => state.cart[index]?.name ?? "An item";
  if (result.ok) {
    state.attempt = null;
    state.cart = [];
    renderCart();
    const { orderNumber, totalAmount, checkoutFee, finalAmount } = result.order;
    return show("placed", `Thank you! Order ${orderNumber} is placed`, [
      `To pay: ${money(finalAmount)} (${money(totalAmount)} and a ${money(checkoutFee)} payment fee).`,
      "A confirmation is on its way to your e-mail.",
    ], "placed");
  }
  switch (result.code) {
    case "VALIDATION_FAILED": {
      const fields = [];
      for (const issue of result.details) {
        const name = issue.path.split(".").at(-1);
        form.elements[name]?.setAttribute("aria-invalid", "true");
        const label = FIELD_LABELS[issue.path] ?? (issue.path.startsWith("items") ? "Your cart" : null);
        if (label && !fields.includes(label)) fields.push(label);
      }
      return show("problem", "Please check your details", [
        `${fields.join(", ") || "Some fields"}: please correct and place the order again.`,
      ], result.code);
    }
    case "PRICE_MISMATCH": {
      const changes = result.details.map((change) => {
        const line = state.cart[change.index];
        if (line) line.unitPrice = change.price;
        for (const product of state.products) {
          if (product.id !== change.productId) continue;
          const variant = product.variants.find((v) => v.id === change.variantId);
          if (variant) variant.price = change.price;
          else product.price = change.price;
        }
        return `${lineName(change.index)}: now ${money(change.price)} (was ${money(change.submittedPrice)})`;
      });
      renderCatalogue();
      renderCart();
      return show("problem", "Prices have changed since you opened this page", [
        ...changes,
        "Your cart shows the new prices. Check the total, then place the order again.",
      ], result.code);
    }
    case "OUT_OF_STOCK":
      return show("problem", "Not enough stock", [
        ...result.details.map((short) =>
          short.available === 0
            ? `${lineName(short.index)} is sold out.`
            : `Only ${short.available} of ${lineName(short.index)} left.`
        ),
        "Change your cart, then place the order again.",
      ], result.code);
    case "VARIANT_REQUIRED":
      return show("problem", "Choose an option", [
        `${lineName(result.details.index)} comes in several options: remove it and add the one you want.`,
      ], result.code);
    case "PRODUCT_NOT_FOUND":
    case "VARIANT_NOT_FOUND":
      return show("problem", "An item is no longer sold", [
        `${lineName(result.details.index)} is no longer available. Remove it, then place the order again.`,
      ], result.code);
    case "STORE_NOT_FOUND":
      return show("failure", "This shop is not taking orders", ["Please come back later."], result.code);
    case "RATE_LIMITED": {
      const wait = result.retryAfter ?? 60;
      const after = wait < 60 ? `${wait} seconds` : `${Math.ceil(wait / 60)} minutes`;
      return show("problem", "Too many orders in a short time", [
        `Please wait about ${after} and try again. Your cart is kept.`,
      ], result.code);
    }
    case "IDEMPOTENCY_KEY_IN_USE":
      // the first press is still being placed: ask again shortly with the same key, which answers it
      setTimeout(() => placeOrder(), 1500);
      return show(
        "problem",
        "Your order is still being placed…",
        ["Checking again in a moment."],
        result.code,
      );
    case "IDEMPOTENCY_KEY_REUSED":
      state.attempt = null;
      return show("problem", "Your order changed while it was being placed", [
        "Please place the order again.",
      ], result.code);
    case "NETWORK_ERROR":
    case "REQUEST_TIMEOUT":
    case "INTERNAL_ERROR":
    case "UNEXPECTED_RESPONSE":
      return show(
        "failure",
        "Your order could not be placed",
        [
          "Please try again: pressing Place order again with the same cart can never order twice.",
        ],
        result.code,
        reference,
      );
    default:
      // UNAUTHORIZED, INVALID_JSON, PAYLOAD_TOO_LARGE: the page or its configuration is at fault
      return show(
        "failure",
        "This shop cannot take orders at the moment",
        [
          "Please contact the shop and quote the reference below.",
        ],
        result.code,
        reference,
      );
  }
}

function show(kind, title, lines, outcome = kind, reference = null) {
  const box = element(
    "div",
    { className: `outcome ${kind}` },
    element("h3", {}, title),
    ...lines.map((line) => element("p", {}, line)),
    ...(reference ? [element("p", { className: "reference" }, reference)] : []),
  );
  $("#result").replaceChildren(box);
  $("#result").dataset.outcome = outcome;
}

form.elements.payment.addEventListener("change", () => {
  $("#proof-field").hidden = form.elements.payment.value !== "upi_direct";
});
form.addEventListener("submit", placeOrder);
loadCatalogue().catch((error) => show("failure", "The catalogue could not be loaded", [error.message]));
