package io.subetha.cxc.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.util.FileSystemUtils;
import tools.jackson.databind.JsonNode;

/**
 * The console behind Spring Security, as the README shows it: the page asks for a login; it carries
 * the CSRF token and header; an action without the token is refused and changes nothing; with it,
 * the action is done and logged with the principal's name.
 */
@SpringBootTest(
        classes = {ConsoleTestApplication.class, SecuredConsoleTest.Security.class},
        webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = {"cxc.console.actions=true", "spring.autoconfigure.exclude="})
@ExtendWith(OutputCaptureExtension.class)
class SecuredConsoleTest {

    private static final Path DIRECTORY = temporary();
    private static final String OPERATOR =
            "Basic "
                    + Base64.getEncoder()
                            .encodeToString("operator:secret".getBytes(StandardCharsets.UTF_8));

    @DynamicPropertySource
    static void directory(DynamicPropertyRegistry registry) {
        registry.add("cxc.directory", () -> DIRECTORY.resolve("cxc").toString());
    }

    @AfterAll
    static void delete() throws IOException {
        FileSystemUtils.deleteRecursively(DIRECTORY);
    }

    /** The README's protection: the console for operators only, CSRF left on. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Security {
        @Bean
        SecurityFilterChain console(HttpSecurity http) throws Exception {
            http.securityMatcher("/cxc/**")
                    .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
                    .httpBasic(Customizer.withDefaults());
            return http.build();
        }

        @Bean
        InMemoryUserDetailsManager operators() {
            return new InMemoryUserDetailsManager(
                    User.withUsername("operator").password("{noop}secret").roles("OPS").build());
        }
    }

    @LocalServerPort int port;

    @Test
    void anActionNeedsTheLoginAndThePagesCsrfTokenAndIsLoggedWithThePrincipal(CapturedOutput output)
            throws Exception {
        ConsoleClient console = new ConsoleClient(port);
        assertThat(console.get("/cxc").statusCode()).isEqualTo(401);
        assertThat(console.get("/cxc/api/overview").statusCode()).isEqualTo(401);

        HttpResponse<String> page = console.get("/cxc", "Authorization", OPERATOR);
        assertThat(page.statusCode()).isEqualTo(200);
        String header = meta(page.body(), "cxc-csrf-header");
        String token = meta(page.body(), "cxc-csrf-token");
        assertThat(header).isEqualTo("X-CSRF-TOKEN");
        assertThat(token).isNotEmpty();
        long term =
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> leader(console), l -> l.get("self").asBoolean())
                        .get("term")
                        .asLong();

        HttpResponse<String> withoutToken =
                console.post(
                        "/cxc/api/actions/step-down",
                        Map.of(),
                        "Authorization",
                        OPERATOR,
                        "X-CXC-Console",
                        "1");
        assertThat(withoutToken.statusCode()).isEqualTo(403);
        assertThat(withoutToken.body()).doesNotContain("\tat ");
        assertThat(leader(console).get("term").asLong()).isEqualTo(term);

        HttpResponse<String> withToken =
                console.post(
                        "/cxc/api/actions/step-down",
                        Map.of(),
                        "Authorization",
                        OPERATOR,
                        "X-CXC-Console",
                        "1",
                        header,
                        token);
        assertThat(withToken.statusCode()).as(withToken.body()).isEqualTo(200);
        assertThat(output).contains("cxc console: operator from 127.0.0.1 did step-down");
    }

    private static JsonNode leader(ConsoleClient console) throws Exception {
        HttpResponse<String> response = console.get("/cxc/api/overview", "Authorization", OPERATOR);
        return console.parse(response.body()).get("cxc").get("leader");
    }

    private static String meta(String html, String name) {
        Matcher m =
                Pattern.compile("<meta name=\"" + name + "\" content=\"([^\"]*)\">").matcher(html);
        assertThat(m.find()).as(name).isTrue();
        return m.group(1);
    }

    private static Path temporary() {
        try {
            return Files.createTempDirectory("cxc-console");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
