/**
 * {@code custody serve}: the decision server (docs/design.md §8 "Decision server"), an HTTP sidecar that decides
 * through the engine every verb uses, on Jetty's core Handler API.
 */
package dev.custody.cli.serve;
