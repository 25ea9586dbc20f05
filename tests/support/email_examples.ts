/** The e-mail rule's table of examples, shared by the TypeScript and the SQL validator tests. */

/** Addresses the contract accepts. */
export const ACCEPTED_EMAILS = [
  "asha@example.com",
  "Asha.Rao@Example.COM",
  "u=x@example.com", // = is atext
  "u@example.xn--p1ai", // an IDN top-level label (.рф)
  "u@xn--80ak6aa92e.com",
  "v+12@example.com",
  "o'brien@example.ie",
  "!#$%&'*+/=?^_`{|}~-@example.com",
  "a@b.co",
  "first.middle.last@mail.example.co.uk",
  "u@a-b.example.com",
  "u@123.example.com",
  `${"a".repeat(64)}@example.com`,
  `a@${"b".repeat(63)}.com`,
  `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(57)}.com`, // 254 characters
];

/** Addresses the contract refuses, each with why. */
export const REFUSED_EMAILS: [string, string][] = [
  ["a label ending in a hyphen", "u@example-.com"],
  ["a label starting with a hyphen", "u@-example.com"],
  ["a 65-character local part", `${"a".repeat(65)}@example.com`],
  ["a 64-character label", `u@${"b".repeat(64)}.com`],
  ["over 254 characters", `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(58)}.com`],
  ["a quoted local part", '"asha rao"@example.com'],
  ["a quoted local part with an @", '"a@b"@example.com'],
  ["an IPv4 literal", "u@[127.0.0.1]"],
  ["an IPv6 literal", "u@[IPv6:::1]"],
  ["a bare IP address", "u@127.0.0.1"],
  ["a digit top-level label", "u@example.123"],
  ["a single label", "u@localhost"],
  ["no local part", "@example.com"],
  ["no domain", "asha@"],
  ["no @", "asha.example.com"],
  ["two @", "a@b@example.com"],
  ["a leading dot", ".asha@example.com"],
  ["a trailing dot in the local part", "asha.@example.com"],
  ["two dots in a row", "a..b@example.com"],
  ["an empty label", "u@example..com"],
  ["a trailing dot in the domain", "u@example.com."],
  ["CR and LF", "asha@example.com\r\nBcc: victim@example.com"],
  ["a space", "asha rao@example.com"],
  ["a non-ASCII local part", "\u00e4sha@example.com"],
  ["a non-ASCII domain (must be xn--)", "u@b\u00fccher.de"],
  ["an xn-- label that ends in a hyphen", "u@example.xn--p1ai-"],
  ["a top-level label of only xn--", "u@example.xn--"],
  ["a comment", "asha(comment)@example.com"],
  ["an empty string", ""],
];
