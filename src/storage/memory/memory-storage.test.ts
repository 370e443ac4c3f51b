import { runStorageConformance } from "../conformance/conformance.js";
import { MemoryStorage } from "./memory-storage.js";

runStorageConformance("memory", async () => ({
  storage: new MemoryStorage(),
  async cleanup() {},
}));
