// The recipe table: one row per recipe, each defined in its own file of this folder. The API's
// dispatch (api/dispatch.cpp) takes the first row whose dtypes and scalings take q's.
#include "recipes/recipe.h"

namespace lowp {

extern const Recipe kFp8PerTensor, kFp8PerToken, kNvfp4PerTensor, kNvfp4PerToken, kNvfp4RowScaled;

namespace {
constexpr const Recipe* kRecipes[] = {&kFp8PerTensor, &kFp8PerToken, &kNvfp4PerTensor, &kNvfp4PerToken,
                                      &kNvfp4RowScaled};
}  // namespace

std::span<const Recipe* const> recipe_table() { return kRecipes; }

}  // namespace lowp
