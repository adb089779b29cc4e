/**
 * Internal, not API (may change in any release): the JSON and YAML document parser behind policy files, which
 * keeps every value's source position so that a diagnostic inside a condition lands on the file's token. The
 * CLI (same release) uses it for policy test files; an embedder should read policies through
 * {@link dev.custody.engine.files.PolicyReader}.
 */
package dev.custody.engine.internal.document;
