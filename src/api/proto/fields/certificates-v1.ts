import type { ProtoMessages } from "../messages.js";

/**
 * certificates/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for
 * repeated/map fields). `ExtraValue` wraps a string list (`items=1`); its JSON form is the bare list.
 */
export const CERTIFICATES_V1: ProtoMessages = {
  "certificates.v1.CertificateSigningRequest":
    "metadata=1:meta.v1.ObjectMeta spec=2:certificates.v1.CertificateSigningRequestSpec status=3:certificates.v1.CertificateSigningRequestStatus",
  "certificates.v1.CertificateSigningRequestCondition": "type=1 status=6 reason=2 message=3 lastUpdateTime=4:meta.v1.Time lastTransitionTime=5:meta.v1.Time",
  "certificates.v1.CertificateSigningRequestSpec":
    "request=1 signerName=7 expirationSeconds=8 usages=5 username=2 uid=3 groups=4 extra=6:certificates.v1.ExtraValue",
  "certificates.v1.CertificateSigningRequestStatus": "conditions=1:certificates.v1.CertificateSigningRequestCondition certificate=2",
  "certificates.v1.ExtraValue": "items=1",
};
