/** The fake Razorpay the local stack serves, for tests: written once in local/fake_razorpay/. */
export {
  type CheckoutAnswer,
  type FakeFailure,
  type FakeRazorpay,
  LOCAL_KEY_PREFIX,
  LOCAL_RAZORPAY_KEYS,
  startFakeRazorpay,
} from "../../local/fake_razorpay/fake_razorpay.ts";
