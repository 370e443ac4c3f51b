/** A PKCS#10 certificate request (CN=alice, O=dev), base64 of its PEM, as a CSR's `spec.request` carries it. For tests. */
export const TEST_CSR_REQUEST = Buffer.from(
  [
    "-----BEGIN CERTIFICATE REQUEST-----",
    "MIHaMIGAAgEAMB4xDjAMBgNVBAMMBWFsaWNlMQwwCgYDVQQKDANkZXYwWTATBgcq",
    "hkjOPQIBBggqhkjOPQMBBwNCAAQ+QOkJ4f3cAdZMqe/ey4wiEbXr9WYntra/mXEp",
    "l2af7N6ZkSA56TuTflg8xkI36EnNxheidwwm9ewTxV8S33knoAAwCgYIKoZIzj0E",
    "AwIDSQAwRgIhAOLRAJhNyA7SmoSr8AS0lGsnMWCRTQHsGd7gP+KHqM4LAiEAkUwe",
    "yMvhaihDN/p0AjWLjUDM46L+hE1xDKlH34jMFKo=",
    "-----END CERTIFICATE REQUEST-----",
    "",
  ].join("\n"),
).toString("base64");
