/**
 * The condition field schema: sections, fields, types and enums per trigger action, and the spec's limits. No
 * dependency beyond the JDK.
 */
module dev.custody.engine.schema {
    exports dev.custody.engine.schema;
}
