/**
 * The examples: an embedding example the README quotes, and the generator of the example action stream.
 */
package dev.custody.examples;
