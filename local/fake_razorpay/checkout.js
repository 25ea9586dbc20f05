// The fake Razorpay's stand-in of Checkout (https://checkout.razorpay.com/v1/checkout.js), for the local
// stack and the tests: the same API, `new Razorpay(options)`, `.on("payment.failed", fn)`, `.open()` and
// `.close()`, and the same handler response `{ razorpay_payment_id, razorpay_order_id, razorpay_signature }`.
// Its modal offers the methods `options.config.display` leaves (blocks without the default ones, minus
// `hide`), and pays, authorizes only or fails the order through the fake, which signs the answer and sends
// the webhooks. A classic script, as Razorpay's is: it defines `window.Razorpay`.
(function () {
  "use strict";
  const ORIGIN = new URL(document.currentScript.src).origin;
  const ALL_METHODS = ["card", "upi", "wallet", "netbanking"];
  const LABELS = { card: "Card", upi: "UPI", wallet: "Wallet", netbanking: "Netbanking" };

  /** The methods Checkout shows under `config.display`, as Razorpay reads blocks, hide and preferences. */
  function shownMethods(options) {
    const display = (options.config && options.config.display) || {};
    const blocks = Object.values(display.blocks || {});
    const fromBlocks = blocks.flatMap((block) =>
      (block.instruments || []).map((instrument) => instrument.method).filter(Boolean)
    );
    const showDefault = !display.preferences || display.preferences.show_default_blocks !== false;
    const shown = showDefault ? [...fromBlocks, ...ALL_METHODS] : fromBlocks;
    const hidden = (display.hide || []).map((entry) => entry.method);
    return [...new Set(shown)].filter((method) => ALL_METHODS.includes(method) && !hidden.includes(method));
  }

  function element(tag, properties, ...children) {
    const node = Object.assign(document.createElement(tag), properties || {});
    node.append(...children);
    return node;
  }

  class Razorpay {
    constructor(options) {
      if (!options || typeof options.key !== "string" || !options.key) {
        throw new Error("Razorpay: options.key (your key id) is required");
      }
      this.options = options;
      this.listeners = {};
      this.overlay = null;
    }

    on(event, callback) {
      (this.listeners[event] = this.listeners[event] || []).push(callback);
      return this;
    }

    open() {
      if (this.overlay) return;
      const options = this.options;
      const methods = shownMethods(options);
      const amount = new Intl.NumberFormat("en-IN", {
        style: "currency",
        currency: options.currency || "INR",
      })
        .format(Number(options.amount) / 100);
      const select = element(
        "select",
        { name: "method" },
        ...methods.map((method) => element("option", { value: method }, LABELS[method])),
      );
      const status = element("p", { className: "rzp-fake-status", role: "status" });
      const button = (action, text) => {
        const node = element("button", { type: "button" }, text);
        node.dataset.action = action;
        node.addEventListener("click", () => this.pay(action, select.value, status));
        return node;
      };
      const close = button("dismiss", "×");
      close.setAttribute("aria-label", "Close");
      const box = element(
        "div",
        { role: "dialog", ariaLabel: "Razorpay Checkout (local test)" },
        close,
        element("h2", {}, options.name || "Razorpay"),
        element("p", {}, options.description || ""),
        element("p", { className: "rzp-fake-amount" }, `Pay ${amount}`),
        element("label", {}, "Method ", select),
        button("captured", "Pay"),
        button("authorized", "Authorize only"),
        button("failed", "Fail payment"),
        status,
        element("p", { className: "rzp-fake-note" }, "Local test checkout: no money moves."),
      );
      Object.assign(box.style, {
        background: "#fff",
        color: "#111",
        padding: "24px",
        borderRadius: "8px",
        minWidth: "280px",
        font: "16px system-ui, sans-serif",
      });
      this.overlay = element("div", { id: "razorpay-fake-checkout" }, box);
      Object.assign(this.overlay.style, {
        position: "fixed",
        inset: "0",
        background: "rgba(0,0,0,.55)",
        display: "grid",
        placeItems: "center",
        zIndex: "2147483647",
      });
      this.overlay.dataset.methods = methods.join(",");
      document.body.append(this.overlay);
    }

    close() {
      this.overlay?.remove();
      this.overlay = null;
    }

    async pay(action, method, status) {
      if (action === "dismiss") {
        this.close();
        this.options.modal?.ondismiss?.();
        return;
      }
      status.textContent = "Processing…";
      let answer;
      try {
        const response = await fetch(`${ORIGIN}/v1/checkout/pay`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify({
            key_id: this.options.key,
            order_id: this.options.order_id,
            method,
            outcome: action,
            notes: this.options.notes,
          }),
        });
        answer = await response.json();
      } catch {
        answer = {
          error: { code: "NETWORK_ERROR", description: "The payment could not be sent", metadata: {} },
        };
      }
      if (answer.error) {
        // as Razorpay's modal does: it stays open for another try, and payment.failed is told
        status.textContent = `Payment failed: ${answer.error.description}`;
        for (const listener of this.listeners["payment.failed"] || []) listener({ error: answer.error });
        return;
      }
      this.close();
      this.options.handler?.(answer);
    }
  }

  globalThis.Razorpay = Razorpay;
})();
