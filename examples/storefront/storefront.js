// The example checkout: the catalogue read with supabase-js under RLS (the anon key sees active products
// only), a cart, the order placed with the typed client, each outcome shown as docs/integrate.md's table says,
// and a gateway order paid through Razorpay Checkout (start-payment, Checkout, verify-payment). Plain
// JavaScript for the browser: no build step.
import { createClient } from "@supabase/supabase-js";
import { createOrder, indianPhoneNumber, startPayment, verifyPayment } from "create-order-client";
import { labelPaymentOptions, paymentChoice, quoteCart, renderAmountToPay } from "./amount_to_pay.js";
import { addingProblem, lineProblem, MAX_QUANTITY, readQuantity, refusedLineProblem } from "./cart_rules.js";
import config from "./config.js";

const supabase = createClient(config.supabaseUrl, config.anonKey, { auth: { persistSession: false } });
const storeId = new URLSearchParams(location.search).get("store") ?? config.storeId;

const state = {
  store: null,
  /** { id, name, price, variants: [{ id, name, price }] }, price the one the buyer is shown */
  products: [],
  /**
   * { productId, variantId, name, unitPrice, quantity, needsOption?, gone?, problem? }: the last three after
   * an answer (`problem`: why create-order refused the line); `quantity` a whole number 1–MAX_QUANTITY
   */
  cart: [],
  /** One checkout attempt: the body sent (and its JSON) and its idempotency key, kept while it stays the same. */
  attempt: null,
  /** While an order is being placed the cart is frozen, so that the answer's `index` means the line it names. */
  placing: false,
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  // not a store id at all: the read would be refused with the database's own words, which are not the buyer's
  if (!UUID.test(storeId) || !(await readCatalogue())) {
    $("#store-name").textContent = "This shop is not taking orders";
    show("failure", "This shop is not taking orders", ["Please come back later."], "STORE_NOT_FOUND");
    $("#place-order").disabled = true;
    document.body.dataset.ready = "closed";
    return;
  }
  $("#store-name").textContent = state.store.name;
  renderCatalogue();
  renderCart();
  document.body.dataset.ready = "true";
}

/** Reads the store and its active catalogue into `state`; false when the store is not open. */
async function readCatalogue() {
  const [stores, products] = await Promise.all([
    supabase.from("stores").select("id,name,currency").eq("id", storeId),
    supabase.from("products").select("id,name,price").eq("store_id", storeId).order("name"),
  ]);
  if (stores.error || products.error) throw new Error((stores.error ?? products.error).message);
  if (stores.data.length === 0) return false;
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
  return true;
}

/** After an answer that says the page's catalogue is out of date: read it again, and show it. */
async function reloadCatalogue() {
  try {
    await readCatalogue();
  } catch {
    return; // the catalogue shown stays; the answer's own message still tells the buyer what to do
  }
  renderCatalogue();
}

function renderCatalogue() {
  $("#catalogue").replaceChildren(...state.products.map((product) => {
    const quantity = element("input", {
      type: "number",
      min: 1,
      max: MAX_QUANTITY,
      step: 1,
      value: 1,
      name: "quantity",
      inputMode: "numeric",
      disabled: state.placing,
    });
    quantity.setAttribute("aria-label", `Quantity of ${product.name}`);
    const problem = element("span", { className: "quantity-problem", role: "alert" });
    quantity.addEventListener("input", () => markQuantity(quantity, problem, null));
    const choice = product.variants.length > 0
      ? element(
        "select",
        { name: "variant", disabled: state.placing },
        ...product.variants.map((variant) =>
          element("option", { value: variant.id }, `${variant.name} · ${money(variant.price)}`)
        ),
      )
      : null;
    const add = element(
      "button",
      { type: "button", className: "add", disabled: state.placing },
      "Add to cart",
    );
    add.dataset.productId = product.id;
    add.addEventListener("click", () => {
      const read = readQuantity(quantity);
      const refused = read.problem ?? addToCart(product, choice?.value ?? null, read.quantity);
      markQuantity(quantity, problem, refused ?? null);
    });
    const item = element(
      "li",
      {},
      element("span", { className: "name" }, product.name),
      ...(choice ? [choice] : [element("span", { className: "price" }, money(product.price))]),
      quantity,
      add,
      problem,
    );
    item.dataset.productId = product.id;
    return item;
  }));
}

/** Marks a quantity field and says why it was refused, or clears both (`problem` null). */
function markQuantity(input, note, problem) {
  if (problem) input.setAttribute("aria-invalid", "true");
  else input.removeAttribute("aria-invalid");
  note.textContent = problem ?? "";
}

/** Adds `quantity` (a whole number 1–MAX_QUANTITY) of an item; why not, when its line would pass the limit. */
function addToCart(product, variantId, quantity) {
  if (state.placing) return null;
  const variant = product.variants.find((v) => v.id === variantId) ?? null;
  const line = state.cart.find((l) => l.productId === product.id && l.variantId === variantId);
  if (line) {
    const problem = addingProblem(line.quantity, quantity);
    if (problem) return problem;
    line.quantity += quantity;
    line.problem = null;
  } else {
    state.cart.push({
      productId: product.id,
      variantId,
      name: variant ? `${product.name} (${variant.name})` : product.name,
      unitPrice: variant ? variant.price : product.price,
      quantity,
    });
  }
  renderCart();
  return null;
}

/** The buyer picks the option of a line the function asked one for (VARIANT_REQUIRED). */
function chooseOption(line, variantId) {
  if (state.placing) return;
  const product = state.products.find((p) => p.id === line.productId);
  const variant = product?.variants.find((v) => v.id === variantId);
  if (!variant) return;
  const same = state.cart.find((l) => l !== line && l.productId === product.id && l.variantId === variant.id);
  if (same) {
    const problem = addingProblem(same.quantity, line.quantity);
    if (problem) {
      show("problem", `Too many of ${same.name}`, [`${problem}: remove a line first.`]);
      return;
    }
    same.quantity += line.quantity;
    state.cart.splice(state.cart.indexOf(line), 1);
  } else {
    Object.assign(line, {
      variantId: variant.id,
      name: `${product.name} (${variant.name})`,
      unitPrice: variant.price,
      needsOption: false,
    });
  }
  renderCart();
}

function renderCart() {
  $("#cart tbody").replaceChildren(...state.cart.map((line, index) => {
    const remove = element("button", { type: "button", disabled: state.placing }, "Remove");
    remove.addEventListener("click", () => {
      if (state.placing) return;
      state.cart.splice(index, 1);
      renderCart();
    });
    const name = element("td", { className: "item" }, line.name);
    // the unit price under the name, for a narrow screen that hides the price column
    name.append(element("span", { className: "each" }, `${money(line.unitPrice)} each`));
    if (line.needsOption) name.append(" ", optionChoice(line));
    if (line.gone) name.append(" ", element("em", {}, "no longer available"));
    const problem = line.problem ?? lineProblem(line);
    if (problem) name.append(element("em", { className: "line-problem" }, problem));
    const row = element(
      "tr",
      { className: [line.gone ? "gone" : "", problem ? "invalid" : ""].join(" ").trim() },
      name,
      element("td", { className: "qty" }, String(line.quantity)),
      element("td", { className: "num unit" }, money(line.unitPrice)),
      element("td", { className: "num" }, lineTotal(line)),
      element("td", { className: "remove" }, remove),
    );
    if (problem) row.setAttribute("aria-invalid", "true");
    row.dataset.productId = line.productId;
    return row;
  }));
  // the subtotal and the amount to pay are one quote of the cart: never one without the other
  const quote = renderAmountToPay(state.cart, form.elements.payment.value, money);
  $("#subtotal").textContent = quote ? money(quote.totalAmount) : "–";
}

/** A line's total from the client's quote, as the order will count it; a dash for a line it cannot price. */
function lineTotal(line) {
  const quote = lineProblem(line) ? null : quoteCart([line], "upi_direct");
  return quote ? money(quote.totalAmount) : "–";
}

/** The select of a line's options, from the catalogue as last read. */
function optionChoice(line) {
  const product = state.products.find((p) => p.id === line.productId);
  const select = element(
    "select",
    { name: "option", disabled: state.placing },
    element("option", { value: "" }, "Choose an option…"),
    ...(product?.variants ?? []).map((variant) =>
      element("option", { value: variant.id }, `${variant.name} · ${money(variant.price)}`)
    ),
  );
  select.addEventListener("change", () => chooseOption(line, select.value));
  return select;
}

/** Freezes the cart (and its catalogue buttons) while an order is being placed, or thaws it. */
function setPlacing(placing) {
  state.placing = placing;
  const controls = document.querySelectorAll(
    "#catalogue button, #catalogue input, #catalogue select, #cart button, #cart select",
  );
  for (const control of controls) control.disabled = placing;
  $("#place-order").disabled = placing;
}

function orderBody() {
  const field = (name) => form.elements[name].value;
  const { paymentMethod, gatewayMethod } = paymentChoice(field("payment"));
  return {
    storeId,
    buyerEmail: field("buyerEmail"),
    buyerName: field("buyerName"),
    // the field has +91 in front: the number as typed, with India's country code the function requires
    buyerPhone: indianPhoneNumber(field("buyerPhone")),
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
  if (state.placing) return;
  if (state.cart.length === 0) {
    // the thank-you of the order just placed stays: a press on an empty cart has nothing new to say
    if ($("#result").dataset.outcome === "placed") return;
    return show("problem", "Your cart is empty", ["Add a product first."]);
  }
  if (state.cart.some((line) => lineProblem(line) !== null)) {
    return show("problem", "Please check your cart", ["Remove the marked line, then place the order again."]);
  }
  const body = orderBody();
  const text = JSON.stringify(body);
  // the same body again (a retry after a failure) keeps its key, so it can never make a second order
  if (state.attempt?.text !== text) state.attempt = { body, text, key: crypto.randomUUID() };
  setPlacing(true);
  try {
    await sendAttempt(state.attempt);
  } finally {
    setPlacing(false);
  }
}

/** How often the page asks again while the first request with its key is still running. */
const IN_USE_TRIES = 6;

/** Sends one attempt: its very body (the cart is frozen meanwhile) with its key, and shows the outcome. */
async function sendAttempt(attempt) {
  $("#result").removeAttribute("data-outcome");
  $("#result").replaceChildren(element("p", { className: "muted" }, "Placing your order…"));
  for (const input of form.querySelectorAll("[aria-invalid]")) input.removeAttribute("aria-invalid");
  if (state.cart.some((line) => line.problem)) {
    for (const line of state.cart) line.problem = null;
    renderCart();
  }
  for (let tries = 1;; tries++) {
    const result = await createOrder(supabase, attempt.body, { idempotencyKey: attempt.key });
    if (result.ok || result.code !== "IDEMPOTENCY_KEY_IN_USE" || tries === IN_USE_TRIES) {
      return await showOutcome(result);
    }
    // the first press is still being placed: ask again shortly with the same key, which answers it
    show("problem", "Your order is still being placed…", ["Checking again in a moment."], result.code);
    await new Promise((resolve) => setTimeout(resolve, 1500));
  }
}

const FIELD_LABELS = {
  buyerName: "Name",
  buyerEmail: "E-mail",
  buyerPhone: "Mobile number",
  "shippingAddress.line1": "Address",
  "shippingAddress.line2": "Address line 2",
  "shippingAddress.city": "City",
  "shippingAddress.state": "State",
  "shippingAddress.postalCode": "PIN code",
  "shippingAddress.country": "Country",
  paymentProofUrl: "Payment proof link",
};

async function showOutcome(result) {
  const reference = result.requestId ? `Reference: ${result.requestId}` : null;
  const lineName = (index) => state.cart[index]?.name ?? "An item";
  if (result.ok) {
    const gateway = state.attempt?.body.paymentMethod === "gateway";
    state.attempt = null;
    state.cart = [];
    renderCart();
    const { orderNumber, totalAmount, checkoutFee, finalAmount } = result.order;
    show("placed", `Thank you! Order ${orderNumber} is placed`, [
      `To pay: ${money(finalAmount)} (${money(totalAmount)} and a ${money(checkoutFee)} payment fee).`,
      "A confirmation is on its way to your e-mail.",
    ], "placed");
    if (gateway) offerPayment(result.order);
    return;
  }
  switch (result.code) {
    case "VALIDATION_FAILED": {
      const fields = [];
      for (const issue of result.details) {
        // a line of the cart (`items.0.quantity`): marked in the cart, with why
        const item = /^items\.(\d+)(?:\.(\w+))?/.exec(issue.path);
        const line = item ? state.cart[Number(item[1])] : undefined;
        if (line) line.problem = refusedLineProblem(item[2]);
        else if (!item) form.elements[issue.path.split(".").at(-1)]?.setAttribute("aria-invalid", "true");
        const label = FIELD_LABELS[issue.path] ?? (item ? "Your cart (the marked line)" : null);
        if (label && !fields.includes(label)) fields.push(label);
      }
      renderCart();
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
    case "VARIANT_REQUIRED": {
      // the product has options the page did not know of: read the catalogue again and ask for one
      await reloadCatalogue();
      const line = state.cart[result.details.index];
      const product = state.products.find((p) => p.id === result.details.productId);
      if (line && product?.variants.length) line.needsOption = true;
      renderCart();
      return show("problem", `Choose an option for ${product?.name ?? lineName(result.details.index)}`, [
        "Pick one in your cart, then place the order again.",
      ], result.code);
    }
    case "PRODUCT_NOT_FOUND":
    case "VARIANT_NOT_FOUND": {
      await reloadCatalogue();
      const line = state.cart[result.details.index];
      if (line) line.gone = true;
      renderCart();
      return show("problem", "An item is no longer sold", [
        `${lineName(result.details.index)} is no longer available: remove it, then place the order again.`,
      ], result.code);
    }
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
      // still running after the page's tries: the same key later answers the order once it is placed
      return show("problem", "Your order is still being placed…", [
        "Please press Place order again in a moment: it cannot order twice.",
      ], result.code);
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

/** A "Pay now" button under a placed gateway order: start-payment, Razorpay Checkout, verify-payment. */
function offerPayment(order) {
  const pay = element("button", { type: "button", id: "pay-now" }, `Pay ${money(order.finalAmount)} now`);
  const note = element("p", { className: "muted" });
  pay.addEventListener("click", () => payNow(order, pay, note));
  $("#result .outcome").append(pay, note);
}

/** Razorpay's own Checkout script, or the local stack's fake for a local key id (rzp_local_…). */
function loadCheckout(keyId) {
  const src = keyId.startsWith("rzp_local_") && config.localCheckoutScript
    ? config.localCheckoutScript
    : "https://checkout.razorpay.com/v1/checkout.js";
  if (document.querySelector(`script[src="${src}"]`)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    document.head.append(element("script", { src, onload: resolve, onerror: reject }));
  });
}

async function payNow(order, pay, note) {
  pay.disabled = true;
  note.textContent = "Opening the payment…";
  const started = await startPayment(supabase, { orderId: order.orderId });
  if (!started.ok) {
    note.textContent = started.code === "ORDER_NOT_PAYABLE"
      ? "This order takes no payment now."
      : "The payment could not be opened. Please try again in a moment.";
    pay.disabled = started.code === "ORDER_NOT_PAYABLE";
    return;
  }
  const payment = started.payment;
  try {
    await loadCheckout(payment.keyId);
  } catch {
    note.textContent = "The payment page could not be loaded. Please try again.";
    pay.disabled = false;
    return;
  }
  note.textContent = "";
  const checkout = new globalThis.Razorpay({
    key: payment.keyId,
    order_id: payment.providerOrderId,
    amount: payment.amount,
    currency: payment.currency,
    name: payment.storeName,
    description: `Order ${payment.orderNumber}`,
    notes: { orderId: payment.orderId },
    // the fee was priced for this method: Checkout offers only it
    config: {
      display: {
        blocks: { order: { name: "Pay with", instruments: [{ method: payment.method }] } },
        sequence: ["block.order"],
        preferences: { show_default_blocks: false },
      },
    },
    handler: (response) => confirmPayment(payment, response, pay, note),
    modal: {
      ondismiss: () => {
        pay.disabled = false;
      },
    },
  });
  checkout.on("payment.failed", () => {
    note.textContent = "The payment failed. You can try again in the payment window.";
  });
  checkout.open();
}

async function confirmPayment(payment, response, pay, note) {
  note.textContent = "Confirming your payment…";
  const verified = await verifyPayment(supabase, {
    orderId: payment.orderId,
    razorpayOrderId: response.razorpay_order_id,
    razorpayPaymentId: response.razorpay_payment_id,
    razorpaySignature: response.razorpay_signature,
  });
  if (verified.ok && verified.verification.status === "paid") {
    pay.remove();
    return show("paid", `Paid: thank you!`, [
      `Order ${payment.orderNumber} is paid. The shop will e-mail you when it ships.`,
    ], "paid");
  }
  // the webhook still confirms a payment that really arrived; the buyer's e-mail says so when it does
  note.textContent =
    "We could not confirm your payment yet. If money left your account, the shop will see it.";
  pay.disabled = false;
}

labelPaymentOptions(form.elements.payment);
form.elements.payment.addEventListener("change", () => {
  $("#proof-field").hidden = form.elements.payment.value !== "upi_direct";
  renderAmountToPay(state.cart, form.elements.payment.value, money);
});
form.addEventListener("submit", placeOrder);
loadCatalogue().catch((error) => {
  console.error(error); // the developer's; the buyer is not shown a database's or a network's own words
  show("failure", "The catalogue could not be loaded", ["Please reload the page in a moment."]);
});
