/**
 * The request bodies, query filters and answers of the custody API, as Java records. Records that
 * travel as JSON map their fields to the API's snake_case names; answers ignore unknown fields and
 * request bodies leave {@code null} fields out. The {@code *Query} records are query-string filters
 * ({@code null} means not sent). Fields the server may omit are nullable; list fields of answers
 * read as empty lists when absent, except {@link dev.custody.client.model.SchemaField#enumValues()},
 * which is {@code null} for a field that is no enum.
 *
 * <p>Every type is an immutable record with copied lists, so instances are safe to share between
 * threads (fields that stay JSON trees, where the spec gives no shape, must not be modified).
 * Jackson annotations are the package's only dependency.
 */
package dev.custody.client.model;
