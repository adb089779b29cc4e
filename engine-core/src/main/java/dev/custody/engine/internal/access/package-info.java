/**
 * Internal, not API, exported to no module: what engine-core's packages reach of each other beyond the exported
 * API (making decisions, an action's check cache, the coverage hook of the engine builder).
 */
package dev.custody.engine.internal.access;
