package task

import (
	"encoding/json"
	"strings"
	"testing"
)

// The wants are what OSWorld's get_macys_product_url_parse answers for
// these addresses.
func TestPathFacets(t *testing.T) {
	keys := []string{"mens_clothing", "shirts", "Men_regular_size_t", "Price_discount_range", "short_sleeve"}
	for u, want := range map[string]string{
		"https://www.macys.com/shop/mens-clothing/mens-shirts/Men_regular_size_t,Price_discount_range,Sleeve_length/L,50_PERCENT_%20off%20%26%20more,Short%20Sleeve?id=20635": `{"Men_regular_size_t":"L","Price_discount_range":"50_PERCENT_ off & more","mens_clothing":true,"shirts":true,"short_sleeve":true}`,
		"https://www.macys.com/shop/mens-clothing/Price_discount_range,Men_regular_size_t/30_PERCENT_%20off%20%26%20more|50_PERCENT_%20off%20%26%20more,M":                    `{"Men_regular_size_t":"M","Price_discount_range":"not_50_PERCENT_ off & more","mens_clothing":true,"shirts":null,"short_sleeve":null}`,
		"https://www.macys.com/shop/womens": `{"Men_regular_size_t":null,"Price_discount_range":"not_50_PERCENT_ off & more","mens_clothing":null,"shirts":null,"short_sleeve":null}`,
	} {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(pathFacets(u, keys)); err != nil {
			t.Fatal(err)
		}
		if got := strings.TrimSpace(b.String()); got != want {
			t.Errorf("%s:\n got %s\nwant %s", u, got, want)
		}
	}
}
