export { applyRecipe } from './apply';
export { learnRecipe, type LearnRecipeInput, type LearnReport } from './learn';
export {
  parseRecipe,
  recipeSchema,
  RECIPE_FORMAT,
  type Extractor,
  type ListField,
  type PageType,
  type Recipe,
  type RecipeField,
  type ValueField,
} from './recipe';
export { genericRecord } from './generic';
