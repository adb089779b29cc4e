/**
 * The examples: an embedding example the README quotes, policy sources (over a database, and a baseline built in
 * code), and the generator of the example action stream.
 */
package dev.custody.examples;
