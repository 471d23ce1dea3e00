package dev.cdccache.coupon.json;

import java.util.List;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** Puts {@link PreEncodedJsonHttpMessageConverter} first, so it, not Jackson, writes pre-encoded bodies. */
@Configuration(proxyBeanMethods = false)
public class PreEncodedJsonConfiguration implements WebMvcConfigurer {

    @Override
    public void extendMessageConverters(List<HttpMessageConverter<?>> converters) {
        converters.add(0, new PreEncodedJsonHttpMessageConverter());
    }
}
