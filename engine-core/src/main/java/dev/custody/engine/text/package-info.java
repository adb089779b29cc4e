/**
 * Tools only (exported to the project's CLI, analysis and Spark modules): text that messages are made of, with no
 * other engine type: did-you-mean suggestions ({@link dev.custody.engine.text.Suggestions}), user input made
 * printable on one line ({@link dev.custody.engine.text.Printable}) and Jackson's limits said in words
 * ({@link dev.custody.engine.text.JsonLimits}). The lowest layer of engine-core (docs/design.md §9.1).
 */
package dev.custody.engine.text;
