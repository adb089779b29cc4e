/**
 * The custody REST API client (docs/design.md §6): {@code java.net.http} and Jackson only. Its API names Jackson's
 * {@code JsonNode} and {@code ObjectMapper}, so Jackson's databind is read transitively; the model records are
 * opened to Jackson, which binds them by reflection.
 */
module dev.custody.client {
    requires transitive com.fasterxml.jackson.databind;
    requires transitive java.net.http;

    exports dev.custody.client;
    exports dev.custody.client.model;

    opens dev.custody.client.model to com.fasterxml.jackson.databind;
}
