package io.subetha.cxc.console;

import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

/** Real HTTP to a console on a random port, keeping cookies as a browser would. */
final class ConsoleClient {

    private final String base;
    private final HttpClient http =
            HttpClient.newBuilder()
                    .cookieHandler(new CookieManager())
                    .connectTimeout(Duration.ofSeconds(5))
                    .build();
    private final ObjectMapper json = new ObjectMapper();

    ConsoleClient(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    HttpResponse<String> get(String path, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, Map<String, String> form, String... headers)
            throws IOException, InterruptedException {
        String body =
                form.entrySet().stream()
                        .map(e -> e.getKey() + "=" + e.getValue())
                        .collect(Collectors.joining("&"));
        HttpRequest.Builder request =
                HttpRequest.newBuilder(URI.create(base + path))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    JsonNode json(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = get(path);
        if (response.statusCode() != 200) {
            throw new AssertionError(
                    path + " answered " + response.statusCode() + ": " + response.body());
        }
        return json.readTree(response.body());
    }

    JsonNode parse(String body) {
        return json.readTree(body);
    }
}
