/**
 * Internal, not API, exported to no module: what an action and the payload check share
 * ({@link dev.custody.engine.internal.payload.ActionSections}), below both of them.
 */
package dev.custody.engine.internal.payload;
