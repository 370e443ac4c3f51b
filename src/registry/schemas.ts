import type { SchemaCatalogue } from "../api/schema/catalogue.js";
import { objectSchemaFor } from "../api/schema/object-schema.js";
import type { ResourceDefinition } from "./definition.js";

/**
 * The definitions with their schema stage attached from the catalogue (kinds without a schema
 * are left as they are). The one place schemas meet resources: the Store runs them on every write.
 */
export function withSchemas(definitions: readonly ResourceDefinition[], catalogue: SchemaCatalogue): ResourceDefinition[] {
  return definitions.map((definition) => {
    if (definition.virtual !== undefined) return definition;
    const schema = objectSchemaFor(catalogue, definition);
    return schema === undefined ? definition : { ...definition, schema };
  });
}
