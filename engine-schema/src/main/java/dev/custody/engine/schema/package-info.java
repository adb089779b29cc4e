/**
 * The field schema: sections, fields, types and enums per trigger action, the limits of the spec, and the
 * {@code GET /policy/schema} JSON form. No CEL dependency, so a UI backend can use it alone.
 */
package dev.custody.engine.schema;
