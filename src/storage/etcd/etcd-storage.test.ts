import { after } from "node:test";
import { runStorageConformance } from "../conformance/conformance.js";
import { type EtcdCluster, startEtcdCluster } from "./etcd-member.js";
import { EtcdStorage } from "./etcd-storage.js";

// One member for the whole file; every case gets its own key prefix and starts at revision 0.
let cluster: Promise<EtcdCluster> | undefined;
let cases = 0;
after(async () => {
  await (await cluster)?.stop();
});

runStorageConformance(
  "etcd",
  async () => {
    cluster ??= startEtcdCluster();
    const { endpoints } = await cluster;
    const prefix = `/conformance/${cases++}`;
    const probe = await EtcdStorage.open({ endpoints, prefix });
    const revisionOffset = probe.currentRevision();
    await probe.close();
    const open = (): Promise<EtcdStorage> => EtcdStorage.open({ endpoints, prefix, revisionOffset });
    return { storage: await open(), reopen: open, async cleanup() {} };
  },
  { persistent: true },
);
