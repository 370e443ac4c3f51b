import type { ProtoMessages } from "../messages.js";

/**
 * meta/v1 messages: each field's wire number, and for message-typed fields the message (element/value message for
 * repeated/map fields). A kind's `apiVersion` and `kind` are not fields of these messages (Status, DeleteOptions): on the
 * wire they travel in the envelope around the object. `Patch` has no fields. `APIResource.verbs` is a `Verbs` message
 * (`items=1`) whose JSON form is the bare string list.
 */
export const META_V1: ProtoMessages = {
  "meta.v1.APIGroup":
    "name=1 versions=2:meta.v1.GroupVersionForDiscovery preferredVersion=3:meta.v1.GroupVersionForDiscovery serverAddressByClientCIDRs=4:meta.v1.ServerAddressByClientCIDR",
  "meta.v1.APIGroupList": "groups=1:meta.v1.APIGroup",
  "meta.v1.APIResource": "name=1 singularName=6 namespaced=2 group=8 version=9 kind=3 verbs=4:meta.v1.Verbs shortNames=5 categories=7 storageVersionHash=10",
  "meta.v1.APIResourceList": "groupVersion=1 resources=2:meta.v1.APIResource",
  "meta.v1.APIVersions": "versions=1 serverAddressByClientCIDRs=2:meta.v1.ServerAddressByClientCIDR",
  "meta.v1.Condition": "type=1 status=2 observedGeneration=3 lastTransitionTime=4:meta.v1.Time reason=5 message=6",
  "meta.v1.DeleteOptions": "gracePeriodSeconds=1 preconditions=2:meta.v1.Preconditions orphanDependents=3 propagationPolicy=4 dryRun=5",
  "meta.v1.FieldSelectorRequirement": "key=1 operator=2 values=3",
  "meta.v1.GroupVersionForDiscovery": "groupVersion=1 version=2",
  "meta.v1.LabelSelector": "matchLabels=1 matchExpressions=2:meta.v1.LabelSelectorRequirement",
  "meta.v1.LabelSelectorRequirement": "key=1 operator=2 values=3",
  "meta.v1.ListMeta": "selfLink=1 resourceVersion=2 continue=3 remainingItemCount=4",
  "meta.v1.ManagedFieldsEntry": "manager=1 operation=2 apiVersion=3 time=4:meta.v1.Time fieldsType=6 fieldsV1=7:meta.v1.FieldsV1 subresource=8",
  "meta.v1.ObjectMeta":
    "name=1 generateName=2 namespace=3 selfLink=4 uid=5 resourceVersion=6 generation=7 creationTimestamp=8:meta.v1.Time deletionTimestamp=9:meta.v1.Time " +
    "deletionGracePeriodSeconds=10 labels=11 annotations=12 ownerReferences=13:meta.v1.OwnerReference finalizers=14 managedFields=17:meta.v1.ManagedFieldsEntry",
  "meta.v1.OwnerReference": "apiVersion=5 kind=1 name=3 uid=4 controller=6 blockOwnerDeletion=7",
  "meta.v1.PartialObjectMetadata": "metadata=1:meta.v1.ObjectMeta",
  "meta.v1.Patch": "",
  "meta.v1.Preconditions": "uid=1 resourceVersion=2",
  "meta.v1.ServerAddressByClientCIDR": "clientCIDR=1 serverAddress=2",
  "meta.v1.Status": "metadata=1:meta.v1.ListMeta status=2 message=3 reason=4 details=5:meta.v1.StatusDetails code=6",
  "meta.v1.StatusCause": "reason=1 message=2 field=3",
  "meta.v1.StatusDetails": "name=1 group=2 kind=3 uid=6 causes=4:meta.v1.StatusCause retryAfterSeconds=5",
  "meta.v1.Verbs": "items=1",
  "meta.v1.WatchEvent": "type=1 object=2:runtime.RawExtension",
};
