package io.subetha.cxc.docs.examples;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

/** The console behind a login. */
@Configuration
class ConsoleSecurityExample {

    // docs:begin console-security
    @Bean
    SecurityFilterChain cxcConsole(HttpSecurity http) throws Exception {
        http.securityMatcher("/cxc/**")
                .authorizeHttpRequests(requests -> requests.anyRequest().hasRole("OPS"))
                .httpBasic(Customizer.withDefaults()); // or formLogin / oauth2Login
        return http.build();
    }
    // docs:end console-security
}
