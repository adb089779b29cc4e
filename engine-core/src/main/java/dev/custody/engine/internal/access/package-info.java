/**
 * Internal, not API, exported to no module: the read of the class path that the compiler adds before it first
 * touches cel-java ({@link dev.custody.engine.internal.access.ClassPathReads}). Below every package that uses it.
 */
package dev.custody.engine.internal.access;
