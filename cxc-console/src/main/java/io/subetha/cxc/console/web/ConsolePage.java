package io.subetha.cxc.console.web;

import jakarta.servlet.http.HttpServletRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanWrapperImpl;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.util.HtmlUtils;

/**
 * The page itself and its script and style, from the jar's resources: nothing is built or fetched
 * at run time. The page carries where its JSON lives and, when Spring Security is present, the CSRF
 * token and header name its POSTs must send.
 */
@Controller
@RequestMapping("${cxc.console.path:/cxc}")
public class ConsolePage {

    private static final String RESOURCES = "/io/subetha/cxc/console/page/";

    private static final Map<String, MediaType> ASSETS =
            Map.of(
                    "console.js", MediaType.valueOf("text/javascript;charset=UTF-8"),
                    "console.css", MediaType.valueOf("text/css;charset=UTF-8"));

    private final String path;
    private final String template = read("index.html");
    private final Map<String, String> assets =
            Map.of("console.js", read("console.js"), "console.css", read("console.css"));

    /**
     * @param path {@code cxc.console.path}
     */
    public ConsolePage(String path) {
        this.path = path;
    }

    @GetMapping({"", "/"})
    public ResponseEntity<String> page(HttpServletRequest request) {
        String html =
                template.replace("{{base}}", escape(request.getContextPath() + path))
                        .replace("{{csrfHeader}}", escape(csrf(request, "headerName")))
                        .replace("{{csrfToken}}", escape(csrf(request, "token")));
        return ResponseEntity.ok()
                .contentType(MediaType.valueOf("text/html;charset=UTF-8"))
                .cacheControl(CacheControl.noStore())
                .body(html);
    }

    @GetMapping("/console.js")
    public ResponseEntity<String> script() {
        return asset("console.js");
    }

    @GetMapping("/console.css")
    public ResponseEntity<String> style() {
        return asset("console.css");
    }

    private ResponseEntity<String> asset(String name) {
        return ResponseEntity.ok()
                .contentType(ASSETS.get(name))
                .cacheControl(CacheControl.noCache())
                .body(assets.get(name));
    }

    /**
     * A property of Spring Security's {@code CsrfToken} request attribute, read by name so the
     * console needs no Spring Security of its own; "" without it.
     */
    private static String csrf(HttpServletRequest request, String property) {
        @Nullable Object token = request.getAttribute("_csrf");
        if (token == null) {
            return "";
        }
        try {
            Object value = new BeanWrapperImpl(token).getPropertyValue(property);
            return value == null ? "" : value.toString();
        } catch (RuntimeException notACsrfToken) {
            return "";
        }
    }

    private static String escape(String text) {
        return HtmlUtils.htmlEscape(text, StandardCharsets.UTF_8.name());
    }

    private static String read(String name) {
        try (InputStream in = ConsolePage.class.getResourceAsStream(RESOURCES + name)) {
            if (in == null) {
                throw new IllegalStateException(
                        "the console's " + name + " is missing from its jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
